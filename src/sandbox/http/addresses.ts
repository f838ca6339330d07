import {isLoopbackHost} from '../../api/base-url.js'

/** Whether a URL names this very server: a loopback host on the port it listens on. */
export function pointsAtItself(target: string, port: number | undefined): boolean {
  try {
    const url = new URL(target)
    const targetPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    return isLoopbackHost(url.hostname) && targetPort === port
  } catch {
    return false
  }
}
