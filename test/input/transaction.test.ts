import {describe, expect, it} from 'vitest'

import {UsageError} from '../../src/cli/errors.js'
import {nameIssue} from '../../src/input/fields.js'
import {buildCreateBody, parseItem, parseMetadata, TX_CREATE_FIELDS} from '../../src/input/transaction.js'

describe('parseItem', () => {
  it('reads key=value pairs, keeping commas inside a description', () => {
    expect(parseItem('title=T-shirt,unitPrice=2990,quantity=2,description=Blue, cotton, size M', 1)).toEqual({
      title: 'T-shirt',
      unitPrice: 2990,
      quantity: 2,
      description: 'Blue, cotton, size M',
    })
  })

  it('reads a JSON object', () => {
    expect(parseItem('{"title":"Cap","unitPrice":2000}', 2)).toEqual({title: 'Cap', unitPrice: 2000})
  })

  it.each([
    ['title=Cap,price=10', /--item #3 must be title=TEXT,unitPrice=CENTS/],
    ['title=Cap,unitPrice=19.90', /--item #3 unitPrice takes integer cents, not a decimal: 19.90 is --item #3 unitPrice 1990/],
    ['title=Cap,unitPrice=100,quantity=two', /--item #3 quantity must be an integer/],
    ['title=Cap,title=Hat,unitPrice=1', /gives title twice/],
  ])('refuses %s', (input, message) => {
    expect(() => parseItem(input, 3)).toThrow(message)
  })
})

describe('parseMetadata', () => {
  it('keeps everything after the first = as the value', () => {
    expect(parseMetadata(['order=4711', 'note=a=b'])).toEqual({order: '4711', note: 'a=b'})
    expect(() => parseMetadata(['novalue'])).toThrow(UsageError)
  })
})

describe('buildCreateBody', () => {
  it('lets flags override the --body file, merging nested objects', () => {
    const {body} = buildCreateBody(
      {amount: '1500', 'customer-email': 'new@example.com', metadata: ['b=2']},
      {amount: 99, customer: {name: 'Ana', document: '52998224725', email: 'old@example.com'}, metadata: {a: '1'}},
    )
    expect(body).toEqual({
      amount: 1500,
      paymentMethod: 'PIX',
      pix: {},
      customer: {name: 'Ana', document: '52998224725', email: 'new@example.com'},
      metadata: {a: '1', b: '2'},
    })
  })

  it('maps --physical, the address and --expiration-seconds', () => {
    const {body} = buildCreateBody({amount: '100', physical: true, 'address-city': 'Recife', 'expiration-seconds': '600'})
    expect(body).toMatchObject({isInfoProduct: false, address: {city: 'Recife'}, pix: {expirationSeconds: 600}})
  })

  it('refuses a decimal amount with the cents hint', () => {
    expect(() => buildCreateBody({amount: '10.00'})).toThrow('--amount takes integer cents, not a decimal: 10.00 is --amount 1000')
  })
})

describe('nameIssue', () => {
  const named = (path: string, flags: Record<string, unknown>, base: Record<string, unknown> = {}) =>
    nameIssue(TX_CREATE_FIELDS, {path, message: 'is bad'}, buildCreateBody(flags, base))

  it('names the flag that set a field, the --body path when the file set it, and the flag that would set a missing one', () => {
    expect(named('customer.document', {'customer-document': 'x'})).toBe('--customer-document is bad')
    expect(named('customer.document', {}, {customer: {document: 'x'}})).toBe('--body field customer.document is bad')
    expect(named('amount', {}, {amount: 'x'})).toBe('--body field amount is bad')
    expect(named('items.1.title', {item: ['title=a,unitPrice=1', 'title=b,unitPrice=1']})).toBe('--item #2 title is bad')
    expect(named('amount', {})).toBe('--amount is bad')
    expect(named('customer.name', {'customer-document': 'x'})).toBe('--customer-name is bad')
  })

  it('sends an alphanumeric CNPJ in upper case, from a flag or from the file', () => {
    expect(buildCreateBody({'seller-document': '12abc34501de35'}).body.seller).toEqual({document: '12ABC34501DE35'})
    expect(buildCreateBody({}, {customer: {name: 'A', document: '12abc34501de35'}}).body.customer).toEqual({name: 'A', document: '12ABC34501DE35'})
  })

  it('keeps an explicit null from the file, to be refused, rather than replacing it with a default', () => {
    const {body} = buildCreateBody({}, {paymentMethod: null, pix: null})
    expect(body.paymentMethod).toBeNull()
    expect(body.pix).toBeNull()
  })
})
