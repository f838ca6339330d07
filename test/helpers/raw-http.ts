import {connect as connectSocket, type Socket} from 'node:net'

/** What came back on a raw connection before it closed: the text, and how it ended. */
export interface Exchange {
  text: string
  status?: number
  ended: 'closed' | 'reset'
}

/** Opens a raw TCP connection to `port`, lets `talk` write to it, and collects all the server sends until it closes. */
export function exchange(port: number, talk: (socket: Socket) => void): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connectSocket(port, '127.0.0.1')
    let text = ''
    let ended: Exchange['ended'] = 'closed'
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', () => (ended = 'reset'))
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]
      resolve({text, status: status ? Number(status) : undefined, ended})
    })
    socket.on('connect', () => talk(socket))
  })
}

/** A whole HTTP/1.1 request that asks the server to close the connection after answering. */
export function request(method: string, path: string, headers: Record<string, string>, body = ''): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  if (body) lines.push(`content-length: ${Buffer.byteLength(body)}`)
  return `${lines.join('\r\n')}\r\n\r\n${body}`
}

export const jsonOf = (exchanged: Exchange) => JSON.parse(exchanged.text.slice(exchanged.text.indexOf('\r\n\r\n') + 4)) as {statusCode: number; message: unknown}
