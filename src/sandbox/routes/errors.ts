import {DomainError} from '../domain/errors.js'
import {errorReply, HttpError, type Reply} from '../http/reply.js'

/** The status code of each kind of domain error: the one place where the domain meets HTTP. */
const STATUS_OF: Record<DomainError['kind'], number> = {
  'not-found': 404,
  conflict: 409,
  invalid: 422,
}

/** The answer to an error a route raised: its status and the sandbox's error body. */
export function replyForError(error: unknown): Reply {
  if (error instanceof HttpError) return errorReply(error.status, error.messages, error.headers)
  if (error instanceof DomainError) return errorReply(STATUS_OF[error.kind], error.messages)
  return errorReply(500, `internal error: ${(error as Error).message}`)
}
