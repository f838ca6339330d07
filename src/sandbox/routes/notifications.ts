import {pointsAtItself} from '../http/addresses.js'
import {parseDateTime, formatIssue} from '../../schemas/rules.js'
import {checkResend} from '../../schemas/resend.js'
import {readJson} from '../http/body.js'
import {empty, HttpError, json} from '../http/reply.js'
import type {Route} from '../http/router.js'

/** The resend endpoint of the gateway API, and the sandbox's list of notifications with their attempts. */
export function notificationRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/dispatcher/request/resend',
      scope: 'resend_dispatcher',
      /**
       * 400 for a body that is not exactly one of the two combinations (or no JSON object at all),
       * 422 for a broken field rule; 201 with no body once the redeliveries are queued.
       */
      async handler({req, domain}) {
        const checked = checkResend(await readJson(req, 400), {nowMs: domain.now()})
        if (!checked.ok) throw new HttpError(checked.problem === 'combination' ? 400 : 422, checked.issues.map(formatIssue))
        const {referenceId, startDate, endDate, status, tags, overrideURL} = checked.value
        if (overrideURL !== undefined && pointsAtItself(overrideURL, req.socket.localPort)) {
          throw new HttpError(422, 'overrideURL must not point at the sandbox itself')
        }
        const range = startDate && endDate ? {fromMs: parseDateTime(startDate), toMs: parseDateTime(endDate)} : {}
        domain.notifications.resend({referenceId, ...range, status, tags}, overrideURL)
        return empty(201)
      },
    },
    {
      method: 'GET',
      path: '/_sandbox/notifications',
      auth: false,
      api: false,
      /** Every notification, oldest first, with its attempts; `?referenceId=` keeps those of one notification or record. */
      handler({url, domain}) {
        const referenceId = url.searchParams.get('referenceId') ?? undefined
        const data = domain.notifications.list({referenceId})
        return json(200, {total: data.length, data})
      },
    },
  ]
}
