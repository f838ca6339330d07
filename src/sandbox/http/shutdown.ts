import type {IncomingMessage, Server} from 'node:http'
import type {Socket} from 'node:net'

/**
 * Closes an HTTP server at once: it stops listening, and every connection without a whole request
 * under way (idle keep-alive ones, one that opened and sent nothing, one still sending its request)
 * is closed now, not when its client or a timeout lets go. A request that has arrived whole is
 * answered, then its connection closed; after `graceMs` whatever is left is cut.
 */
export function closableServer(server: Server, graceMs = 1000): () => Promise<void> {
  const sockets = new Set<Socket>()
  const busy = new Map<Socket, IncomingMessage>()
  let closing = false
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => {
      sockets.delete(socket)
      busy.delete(socket)
    })
  })
  server.on('request', (req, res) => {
    const {socket} = req
    busy.set(socket, req)
    res.once('close', () => {
      busy.delete(socket)
      // Answered while the server closes: the connection is not kept for another request.
      if (closing) socket.end()
    })
  })
  return () =>
    new Promise<void>((resolve) => {
      closing = true
      server.close(() => resolve())
      server.closeIdleConnections()
      for (const socket of sockets) if (!busy.get(socket)?.complete) socket.destroy()
      setTimeout(() => server.closeAllConnections(), graceMs).unref()
    })
}
