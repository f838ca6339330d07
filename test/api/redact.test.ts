import {describe, expect, it} from 'vitest'

import {REDACTED, redactBody, redactHeader, scrub} from '../../src/api/redact.js'

describe('redaction', () => {
  it('redacts bearer tokens but keeps the scheme', () => {
    expect(redactHeader('Authorization', 'Bearer abc.def.ghi')).toBe(`Bearer ${REDACTED}`)
    expect(redactHeader('content-type', 'application/json')).toBe('application/json')
  })

  it('redacts the client secret of a form and tokens of a JSON body', () => {
    const form = redactBody('grant_type=client_credentials&client_id=me&client_secret=s3cr%26t', 'application/x-www-form-urlencoded')
    expect(form).toBe(`grant_type=client_credentials&client_id=me&client_secret=${REDACTED}`)
    const json = JSON.parse(redactBody(JSON.stringify({access_token: 'tok', nested: [{clientSecret: 'x'}], scope: 'a'}), 'application/json'))
    expect(json).toEqual({access_token: REDACTED, nested: [{clientSecret: REDACTED}], scope: 'a'})
  })

  it('scrubs known secret values anywhere in a text', () => {
    expect(scrub('error near sandbox-secret here', ['sandbox-secret'])).toBe(`error near ${REDACTED} here`)
  })
})
