import {describe, expect, it} from 'vitest'

import {describeTlsFailure, tlsAlert} from '../../src/api/tls.js'

/** A failed handshake as Node reports it: OpenSSL's words for the alert, made into a code. */
const handshake = (code: string) => Object.assign(new Error(`handshake failed: ${code}`), {code})

const ORIGIN = 'https://gateway.example:8443'

describe('TLS alerts, whichever OpenSSL names them', () => {
  it.each([
    // OpenSSL 3.0 to 3.4 (Node 20, 22) and OpenSSL 3.5 on (Node 24) for the same alerts.
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'HANDSHAKE_FAILURE'],
    ['ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE', 'HANDSHAKE_FAILURE'],
    ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'BAD_CERTIFICATE'],
    ['ERR_SSL_SSL/TLS_ALERT_BAD_CERTIFICATE', 'BAD_CERTIFICATE'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'UNKNOWN_CA'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'CERTIFICATE_REQUIRED'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', undefined],
    ['ECONNRESET', undefined],
    [undefined, undefined],
  ])('%s is the alert %s', (code, alert) => {
    expect(tlsAlert(code)).toBe(alert)
  })

  describe.each(['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE'])('a TLS 1.2 handshake failure, %s', (code) => {
    it('without a certificate, before the gateway was asked: a handshake failure that may want one', () => {
      expect(describeTlsFailure(handshake(code), ORIGIN, {withCertificate: false})).toMatchObject({kind: 'handshake', message: expect.stringMatching(/it may want a client certificate/)})
    })

    it('without a certificate, the gateway asking for one: a certificate required', () => {
      expect(describeTlsFailure(handshake(code), ORIGIN, {withCertificate: false, asked: true})).toMatchObject({kind: 'certificate-required'})
    })

    it('without a certificate, the gateway not asking for one: a plain handshake failure', () => {
      const failure = describeTlsFailure(handshake(code), ORIGIN, {withCertificate: false, asked: false})
      expect(failure).toMatchObject({kind: 'handshake', message: `the gateway at ${ORIGIN} ended the TLS handshake (handshake failure)`})
      expect(failure?.hint).toBeUndefined()
    })

    it('seen on the connection while the request failed for another reason', () => {
      const closed = Object.assign(new Error('other side closed'), {code: 'UND_ERR_SOCKET'})
      expect(describeTlsFailure(closed, ORIGIN, {alert: handshake(code), withCertificate: false, asked: true})).toMatchObject({kind: 'certificate-required'})
    })
  })

  it.each(['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_SSL/TLS_ALERT_BAD_CERTIFICATE', 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'])('%s with a certificate shown: the certificate was refused', (code) => {
    const failure = describeTlsFailure(handshake(code), ORIGIN, {withCertificate: true})
    expect(failure).toMatchObject({kind: 'certificate-refused'})
    expect(failure?.message).toMatch(/TLS alert: (bad certificate|unknown ca)\)$/)
  })
})
