import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import type {Deposit, DepositPage, Transaction} from '../../src/api/types.js'
import {SNAPSHOT_LIMIT, SNAPSHOT_TTL_MS} from '../../src/sandbox/domain/snapshots.js'
import {txidFor} from '../../src/sandbox/domain/fixtures.js'
import {DEPOSIT_ORIGINS, DEPOSIT_STATUSES, LIMITS} from '../../src/schemas/enums.js'
import {control, startTestSandbox, stats, tokenFor, type Sandbox} from '../helpers/sandbox.js'

type Created = Transaction & {depositOrigin: string}
interface Answer<T> {
  status: number
  body: T
}
interface ErrorBody {
  statusCode: number
  error: string
  message: string | string[]
}

const DAY_MS = 86_400_000

/** A caller of the deposit endpoints with a token of the default client. */
async function connect(sandbox: Sandbox) {
  let token = await tokenFor(sandbox.baseUrl)
  const headers = () => ({authorization: `Bearer ${token}`})

  async function list<T = DepositPage>(query: string): Promise<Answer<T>> {
    const response = await fetch(`${sandbox.baseUrl}/core/deposit?${query}`, {headers: headers()})
    return {status: response.status, body: (await response.json()) as T}
  }

  return {
    list,
    /** A new token, for a sandbox whose clock was moved past the old one's expiry. */
    async renew() {
      token = await tokenFor(sandbox.baseUrl)
    },
    /** POSTs a body (JSON unless it is text already) to a path, with the token. */
    async post<T = Created>(path: string, body: unknown, contentType = 'application/json'): Promise<Answer<T>> {
      const response = await fetch(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: {...headers(), 'content-type': contentType},
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      return {status: response.status, body: (await response.json()) as T}
    },
    /** Every page of one snapshot, the first request making it and the rest reusing it. */
    async walk(query: string): Promise<{pages: DepositPage[]; items: Deposit[]}> {
      const first = await list(query)
      expect(first.status).toBe(200)
      const pages = [first.body]
      for (let page = 2; page <= first.body.totalPages; page += 1) {
        const next = await list(`${query}&snapshot=${first.body.snapshot}&page=${page}`)
        expect(next.status).toBe(200)
        pages.push(next.body)
      }
      return {pages, items: pages.flatMap((page) => page.data)}
    },
  }
}

type Client = Awaited<ReturnType<typeof connect>>

const ids = (items: Array<{id: string}>) => items.map((item) => item.id)
const messagesOf = (body: ErrorBody) => (Array.isArray(body.message) ? body.message : [body.message])

describe('GET /core/deposit over a seeded sandbox', () => {
  const SEEDS = 2500
  let sandbox: Sandbox
  let api: Client
  /** The sandbox's own full set, newest first, as an unfiltered walk lists it. */
  let all: Deposit[]

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: SEEDS})
    api = await connect(sandbox)
    all = (await api.walk(`perPage=${LIMITS.perPage.max}`)).items
  })
  afterAll(() => sandbox.close())

  /** Lists with a filter and checks the answer is exactly the matching part of the full set, in order. */
  async function expectFilter(query: string, matches: (deposit: Deposit) => boolean): Promise<Deposit[]> {
    const expected = all.filter(matches)
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(all.length)
    const {items} = await api.walk(`${query}&perPage=${LIMITS.perPage.max}`)
    expect(ids(items)).toEqual(ids(expected))
    return items
  }

  it('walks every page of a snapshot and meets each record exactly once, newest first', async () => {
    const stored = [...sandbox.domain.records.newestFirst()].map((entry) => entry.id)
    expect(stored).toHaveLength(SEEDS)
    expect(ids(all)).toEqual(stored)
    const {pages, items} = await api.walk('perPage=7')
    expect(pages).toHaveLength(Math.ceil(SEEDS / 7))
    expect(new Set(pages.map((page) => page.snapshot)).size).toBe(1)
    pages.forEach((page, index) => {
      expect(page).toMatchObject({currentPage: index + 1, perPage: 7, totalPages: Math.ceil(SEEDS / 7)})
      expect(page.data.length).toBe(index + 1 < pages.length ? 7 : SEEDS % 7 || 7)
    })
    expect(new Set(ids(items)).size).toBe(SEEDS)
    expect(ids(items)).toEqual(stored)
    const times = items.map((item) => Date.parse(item.createdAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it('answers 20 per page on page 1 when the query names neither', async () => {
    const {status, body} = await api.list('')
    expect(status).toBe(200)
    expect(body).toMatchObject({currentPage: 1, perPage: LIMITS.perPage.default, totalPages: Math.ceil(SEEDS / LIMITS.perPage.default)})
    expect(ids(body.data)).toEqual(ids(all.slice(0, LIMITS.perPage.default)))
  })

  it('seeds every status and both origins, created within the last 90 days', () => {
    expect(new Set(all.map((deposit) => deposit.status))).toEqual(new Set(DEPOSIT_STATUSES))
    expect(new Set(all.map((deposit) => deposit.depositOrigin))).toEqual(new Set(DEPOSIT_ORIGINS))
    const now = Date.now()
    for (const deposit of all) {
      const created = Date.parse(deposit.createdAt)
      expect(created).toBeGreaterThanOrEqual(now - 90 * DAY_MS - 60_000)
      expect(created).toBeLessThanOrEqual(now)
      expect(Date.parse(deposit.updatedAt)).toBeGreaterThanOrEqual(created)
      expect(Date.parse(deposit.updatedAt)).toBeLessThanOrEqual(now)
      expect(deposit.statusHistory.at(-1)?.status).toBe(deposit.status)
      expect(Number.isInteger(deposit.amount) && deposit.amount >= LIMITS.amount.min && deposit.amount <= LIMITS.amount.max).toBe(true)
    }
    expect(new Set(all.map((deposit) => deposit.amount)).size).toBeGreaterThan(SEEDS / 2)
  })

  it('seeds paid records with a payer, an end-to-end id and the paid fields, and QR codes with a real BR Code but no image', () => {
    for (const deposit of all) {
      const paid = deposit.statusHistory.some((entry) => entry.status === 'PAID')
      if (paid) {
        expect(deposit.payer?.name).toMatch(/\S+ \S+/)
        expect(deposit.payer?.document).toMatch(/^\*+[0-9A-Z]{4}$/)
        expect(deposit.endToEnd).toMatch(/^E\d{8}\d{12}[0-9A-Z]{11}$/)
        expect(deposit.amountPaid).toBe(deposit.amount)
        expect(Date.parse(deposit.paymentDate!)).toBeGreaterThanOrEqual(Date.parse(deposit.createdAt))
      } else {
        expect(deposit.payer).toBeUndefined()
        expect(deposit.endToEnd).toBeUndefined()
      }
      if (deposit.status === 'REFUNDED') expect(deposit.endToEndRefund).toMatch(/^D/)
      if (deposit.status === 'FAILED') expect(deposit.errorMessage).toBeTruthy()
      if (deposit.depositOrigin === 'QRCODE') {
        const amount = (deposit.amount / 100).toFixed(2)
        expect(deposit.pixResponse?.uri).toMatch(/^000201/)
        expect(deposit.pixResponse?.uri).toContain(`54${String(amount.length).padStart(2, '0')}${amount}`)
        expect(deposit.pixResponse?.uri).toContain(txidFor(deposit.id))
        expect(deposit.pixResponse).not.toHaveProperty('qrCodeBase64')
      } else {
        expect(deposit.pixResponse).toBeUndefined()
      }
    }
  })

  it('draws the QR image of a seeded QR-code deposit when it is looked up', async () => {
    const seeded = all.find((deposit) => deposit.depositOrigin === 'QRCODE')!
    const response = await fetch(`${sandbox.baseUrl}/core/transaction/${seeded.id}`, {headers: {authorization: `Bearer ${await tokenFor(sandbox.baseUrl)}`}})
    expect(response.status).toBe(200)
    const record = (await response.json()) as Transaction
    expect(record.pixResponse?.uri).toBe(seeded.pixResponse?.uri)
    expect(record.pixResponse?.qrCodeBase64).toMatch(/^data:image\/png;base64,iVBORw0KGgo/)
  })

  it('answers deposit items: no customer, seller, product or infraction fields, with depositOrigin', () => {
    for (const field of ['customer', 'seller', 'isInfoProduct', 'address', 'items', 'metadata', 'infractionDate', 'infractionAmount']) {
      expect(all.filter((deposit) => field in deposit)).toEqual([])
    }
    expect(all.every((deposit) => DEPOSIT_ORIGINS.includes(deposit.depositOrigin))).toBe(true)
  })

  it('filters by one status and by several', async () => {
    await expectFilter('status=PAID', (deposit) => deposit.status === 'PAID')
    await expectFilter('status=REFUNDED&status=PENDING_COMPLIANCE', (deposit) => ['REFUNDED', 'PENDING_COMPLIANCE'].includes(deposit.status))
  })

  it('takes a list as repeated keys, as key[] and as comma-separated values alike', async () => {
    const matches = (deposit: Deposit) => ['PAID', 'REFUNDED', 'FAILED'].includes(deposit.status)
    const repeated = await expectFilter('status=PAID&status=REFUNDED&status=FAILED', matches)
    const brackets = await expectFilter('status[]=PAID&status[]=REFUNDED&status[]=FAILED', matches)
    const commas = await expectFilter('status=PAID,REFUNDED,FAILED', matches)
    expect(ids(brackets)).toEqual(ids(repeated))
    expect(ids(commas)).toEqual(ids(repeated))
    await expectFilter('depositOrigin[]=PIX_KEY&status=PAID,REFUNDED', (deposit) => deposit.depositOrigin === 'PIX_KEY' && ['PAID', 'REFUNDED'].includes(deposit.status))
  })

  it('filters by origin', async () => {
    await expectFilter('depositOrigin=PIX_KEY', (deposit) => deposit.depositOrigin === 'PIX_KEY')
    await expectFilter('depositOrigin=QRCODE', (deposit) => deposit.depositOrigin === 'QRCODE')
    const both = await api.walk(`depositOrigin=QRCODE,PIX_KEY&perPage=${LIMITS.perPage.max}`)
    expect(ids(both.items)).toEqual(ids(all))
  })

  it('filters by creation time, both ends included, with or without an offset', async () => {
    const start = all[1800].createdAt
    const end = all[600].createdAt
    const within = (from: string, to: string) => (deposit: Deposit) =>
      Date.parse(deposit.createdAt) >= Date.parse(from) && Date.parse(deposit.createdAt) <= Date.parse(to)
    const items = await expectFilter(`startDate=${start}&endDate=${end}`, within(start, end))
    expect(ids(items)).toContain(all[1800].id)
    expect(ids(items)).toContain(all[600].id)
    await expectFilter(`startDate=${start}`, within(start, '9999-12-31T00:00:00Z'))
    await expectFilter(`endDate=${end}`, within('1970-01-01T00:00:00Z', end))
    // The same instants written in São Paulo time, and without any offset (read as UTC).
    const inSaoPaulo = (iso: string) => `${new Date(Date.parse(iso) - 3 * 3_600_000).toISOString().slice(0, 23)}-03:00`
    await expectFilter(`startDate=${encodeURIComponent(inSaoPaulo(start))}&endDate=${encodeURIComponent(inSaoPaulo(end))}`, within(start, end))
    await expectFilter(`startDate=${start.slice(0, -1)}&endDate=${end.slice(0, -1)}`, within(start, end))
  })

  it('filters by amount, both bounds included', async () => {
    const amounts = all.map((deposit) => deposit.amount).sort((a, b) => a - b)
    const low = amounts[Math.floor(amounts.length * 0.3)]
    const high = amounts[Math.floor(amounts.length * 0.7)]
    const items = await expectFilter(`minAmount=${low}&maxAmount=${high}`, (deposit) => deposit.amount >= low && deposit.amount <= high)
    expect(items.some((deposit) => deposit.amount === low)).toBe(true)
    expect(items.some((deposit) => deposit.amount === high)).toBe(true)
    await expectFilter(`minAmount=${low}`, (deposit) => deposit.amount >= low)
    await expectFilter(`maxAmount=${high}`, (deposit) => deposit.amount <= high)
  })

  it('combines every filter', async () => {
    const start = all[2000].createdAt
    const end = all[200].createdAt
    await expectFilter(
      `status=PAID&status=REFUNDED&depositOrigin=QRCODE&startDate=${start}&endDate=${end}&minAmount=500&maxAmount=500000`,
      (deposit) =>
        ['PAID', 'REFUNDED'].includes(deposit.status) &&
        deposit.depositOrigin === 'QRCODE' &&
        Date.parse(deposit.createdAt) >= Date.parse(start) &&
        Date.parse(deposit.createdAt) <= Date.parse(end) &&
        deposit.amount >= 500 &&
        deposit.amount <= 500_000,
    )
  })

  it('answers no pages for a query nothing matches, and ignores parameters it does not know', async () => {
    const {status, body} = await api.list('startDate=2000-01-01T00:00:00Z&endDate=2000-01-02T00:00:00Z&color=blue')
    expect(status).toBe(200)
    expect(body).toMatchObject({totalPages: 0, currentPage: 1, data: []})
    expect(body.snapshot).toEqual(expect.any(String))
  })
})

describe('seeding', () => {
  it('makes the same deposits for the same count', async () => {
    const at = Date.parse('2026-03-01T12:00:00Z')
    const walkSeeded = async () => {
      const sandbox = await startTestSandbox({seedDeposits: 300, now: () => at})
      try {
        const {items} = await (await connect(sandbox)).walk(`perPage=${LIMITS.perPage.max}`)
        return items.map(({id, status, depositOrigin, amount, createdAt, updatedAt}) => ({id, status, depositOrigin, amount, createdAt, updatedAt}))
      } finally {
        await sandbox.close()
      }
    }
    const first = await walkSeeded()
    expect(first).toHaveLength(300)
    expect(await walkSeeded()).toEqual(first)
  })
})

describe('GET /core/deposit validation', () => {
  let sandbox: Sandbox
  let api: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    api = await connect(sandbox)
  })
  afterAll(() => sandbox.close())

  const cases: Array<[what: string, query: string, message: RegExp]> = [
    ['an unknown status', 'status=PAYED', /^status\.0 must be one of PENDING, .*PENDING_COMPLIANCE$/],
    ['an empty status list', 'status=', /^status must not be empty$/],
    ['a repeated status', 'status=PAID&status[]=PAID', /^status must not repeat a value$/],
    ['an empty value in a list', 'status=PAID,,FAILED', /^status\.1 must be one of /],
    ['an unknown origin', 'depositOrigin=BANK', /^depositOrigin\.0 must be one of QRCODE, PIX_KEY$/],
    ['an empty origin list', 'depositOrigin[]=', /^depositOrigin must not be empty$/],
    ['a repeated origin', 'depositOrigin=QRCODE,QRCODE', /^depositOrigin must not repeat a value$/],
    ['a date without time', 'startDate=2026-01-01', /^startDate must be an ISO date-time with a time of day/],
    ['a date that is not ISO', 'endDate=yesterday', /^endDate must be an ISO date-time/],
    ['a zero amount', 'minAmount=0', /^minAmount must be from 1 to 10000000 cents$/],
    ['a decimal amount', 'minAmount=10.5', /^minAmount must be .*no decimals/],
    ['an amount over the maximum', 'maxAmount=10000001', /^maxAmount must be from 1 to 10000000 cents$/],
    ['an amount that is no number', 'maxAmount=ten', /^maxAmount must be a number, not "ten"$/],
    ['an amount that is no finite number', 'maxAmount=Infinity', /^maxAmount must be a number, not "Infinity"$/],
    ['an empty amount', 'minAmount=', /^minAmount must be a number, not ""$/],
    ['a page that is no number', 'page=two', /^page must be a number, not "two"$/],
    ['minAmount over maxAmount', 'minAmount=500&maxAmount=100', /^minAmount must not exceed maxAmount \(500 > 100\)$/],
    ['startDate after endDate', 'startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z', /^startDate must not be after endDate$/],
    ['perPage 0', 'perPage=0', /^perPage must be a positive integer$/],
    ['perPage 101', 'perPage=101', /^perPage must be from 1 to 100$/],
    ['a decimal perPage', 'perPage=2.5', /^perPage must be a positive integer$/],
    ['page 0', 'page=0', /^page must be a positive integer$/],
    ['page given twice', 'page=1&page=2', /^page must be given once, not 2 times$/],
    ['an empty snapshot', 'snapshot=', /^snapshot must not be empty$/],
  ]

  it.each(cases)('answers 422 for %s', async (_what, query, message) => {
    const {status, body} = await api.list<ErrorBody>(query)
    expect(status).toBe(422)
    expect(body).toMatchObject({statusCode: 422, error: 'Unprocessable Entity'})
    expect(body.message).toEqual([expect.stringMatching(message)])
  })

  it('lists every problem of a query at once', async () => {
    const {status, body} = await api.list<ErrorBody>('status=NOPE&minAmount=0&page=0&perPage=x&startDate=today')
    expect(status).toBe(422)
    expect(messagesOf(body).map((message) => message.split(/[ .]/)[0]).sort()).toEqual(['minAmount', 'page', 'perPage', 'startDate', 'status'])
  })

  it('accepts the edges of every bound', async () => {
    const {status} = await api.list('minAmount=1&maxAmount=10000000&perPage=100&page=1&startDate=2026-01-01T00:00:00Z&endDate=2026-01-01T00:00:00Z')
    expect(status).toBe(200)
  })

  it('needs a bearer token', async () => {
    const response = await fetch(`${sandbox.baseUrl}/core/deposit`)
    expect(response.status).toBe(401)
    const control = await fetch(`${sandbox.baseUrl}/_sandbox/deposits`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({amount: 100}),
    })
    expect(control.status).toBe(401)
  })
})

describe('snapshots', () => {
  let clock: number
  let sandbox: Sandbox
  let api: Client

  beforeEach(async () => {
    clock = Date.parse('2026-03-01T12:00:00Z')
    sandbox = await startTestSandbox({now: () => clock})
    api = await connect(sandbox)
  })
  afterEach(() => sandbox.close())

  /** PIX-key deposits of these amounts, each a millisecond after the last so their order is known. */
  async function deposits(...amounts: number[]): Promise<Created[]> {
    const made: Created[] = []
    for (const amount of amounts) {
      clock += 1
      const {status, body} = await api.post('/_sandbox/deposits', {amount})
      expect(status).toBe(201)
      made.push(body)
    }
    return made
  }

  it('keeps its set while records are created, and a new listing sees them', async () => {
    const before = await deposits(100, 200, 300, 400, 500)
    const first = await api.list('perPage=2')
    expect(first.body).toMatchObject({totalPages: 3, currentPage: 1, perPage: 2})
    const after = await deposits(600, 700, 800)
    const rest = [2, 3, 4].map((page) => api.list(`perPage=2&page=${page}&snapshot=${first.body.snapshot}`))
    const pages = [first.body, ...(await Promise.all(rest)).map((answer) => answer.body)]
    pages.forEach((page) => expect(page.totalPages).toBe(3))
    expect(ids(pages.flatMap((page) => page.data))).toEqual(ids(before).reverse())
    expect(pages[3].data).toEqual([])
    const fresh = await api.walk('perPage=2')
    expect(ids(fresh.items)).toEqual(ids([...before, ...after]).reverse())
  })

  it('shows records as they were when it was made, while they change status', async () => {
    const made = await deposits(1000, 2000, 3000, 4000)
    const first = await api.list('status=DEPOSIT_PIXKEY_GENERATED&perPage=2')
    expect(first.body.totalPages).toBe(2)
    clock += 60_000
    for (const {id} of made) expect((await api.post(`/_sandbox/transactions/${id}/pay`, {})).status).toBe(200)
    const pages = await Promise.all([1, 2].map((page) => api.list(`status=DEPOSIT_PIXKEY_GENERATED&perPage=2&page=${page}&snapshot=${first.body.snapshot}`)))
    for (const page of pages) expect(page).toMatchObject({status: 200, body: {totalPages: 2}})
    const seen = pages.flatMap((page) => page.body.data)
    expect(ids(seen)).toEqual(ids(made).reverse())
    expect(pages[0].body.data).toEqual(first.body.data.map((deposit) => ({...deposit, statusHistory: expect.any(Array)})))
    for (const deposit of seen) {
      expect(deposit.status).toBe('DEPOSIT_PIXKEY_GENERATED')
      expect(deposit.statusHistory.map((entry) => entry.status)).toEqual(['DEPOSIT_PIXKEY_GENERATED'])
      expect(deposit).not.toHaveProperty('payer')
      expect(deposit).not.toHaveProperty('endToEnd')
    }
    // They did change: a new listing finds them paid and none waiting.
    expect((await api.list('status=DEPOSIT_PIXKEY_GENERATED')).body.data).toEqual([])
    const paid = (await api.list('status=PAID')).body.data
    expect(ids(paid)).toEqual(ids(made).reverse())
    expect(paid.every((deposit) => deposit.payer && deposit.endToEnd)).toBe(true)
  })

  it('refuses another perPage or other filters, naming each difference', async () => {
    await deposits(100, 200, 300)
    const made = await api.list('status=DEPOSIT_PIXKEY_GENERATED&minAmount=100&perPage=2')
    const id = made.body.snapshot!
    const mismatch = async (query: string) => {
      const {status, body} = await api.list<ErrorBody>(`${query}&snapshot=${id}&page=2`)
      expect(status).toBe(422)
      return body.message
    }
    expect(await mismatch('status=DEPOSIT_PIXKEY_GENERATED&minAmount=100&perPage=50')).toBe(`snapshot ${id} was made with perPage 2, not 50`)
    expect(await mismatch('status=DEPOSIT_PIXKEY_GENERATED&minAmount=100')).toBe(`snapshot ${id} was made with perPage 2, not 20`)
    expect(await mismatch('status=PAID,DEPOSIT_PIXKEY_GENERATED&minAmount=100&perPage=2')).toBe(
      `snapshot ${id} was made with status DEPOSIT_PIXKEY_GENERATED, not DEPOSIT_PIXKEY_GENERATED,PAID`,
    )
    expect(await mismatch('status=DEPOSIT_PIXKEY_GENERATED&perPage=5&maxAmount=900')).toBe(
      `snapshot ${id} was made with perPage 2, not 5; with minAmount 100, not without it; without maxAmount, not 900`,
    )
  })

  it('does not count the order of list values or the writing of an instant as a difference', async () => {
    await deposits(100, 200, 300)
    const query = 'status=PAID,DEPOSIT_PIXKEY_GENERATED&depositOrigin=PIX_KEY,QRCODE&startDate=2026-03-01T09:00:00-03:00&perPage=2'
    const made = await api.list(query)
    expect(made.body.totalPages).toBe(2)
    const same = 'status=DEPOSIT_PIXKEY_GENERATED&status=PAID&depositOrigin[]=QRCODE&depositOrigin[]=PIX_KEY&startDate=2026-03-01T12:00:00.000Z&perPage=2'
    const next = await api.list(`${same}&page=2&snapshot=${made.body.snapshot}`)
    expect(next.status).toBe(200)
    expect(next.body.data).toHaveLength(1)
  })

  it('answers an empty page past the last', async () => {
    await deposits(100, 200, 300)
    const made = await api.list('perPage=2')
    const past = await api.list(`perPage=2&page=9&snapshot=${made.body.snapshot}`)
    expect(past.status).toBe(200)
    expect(past.body).toMatchObject({totalPages: 2, currentPage: 9, perPage: 2, snapshot: made.body.snapshot, data: []})
  })

  it('refuses an unknown snapshot', async () => {
    const {status, body} = await api.list<ErrorBody>('snapshot=no-such-snapshot&page=2')
    expect(status).toBe(422)
    expect(body.message).toMatch(/^snapshot no-such-snapshot is unknown or expired/)
  })

  it('expires a snapshot after 30 minutes without use, counted from its last use', async () => {
    await deposits(100, 200, 300)
    const made = await api.list('perPage=2')
    const again = () => api.list<DepositPage & ErrorBody>(`perPage=2&page=2&snapshot=${made.body.snapshot}`)
    clock += SNAPSHOT_TTL_MS - 60_000
    expect((await again()).status).toBe(200)
    clock += SNAPSHOT_TTL_MS - 60_000
    await api.renew()
    expect((await again()).status).toBe(200)
    clock += SNAPSHOT_TTL_MS + 1
    await api.renew()
    const expired = await again()
    expect(expired.status).toBe(422)
    expect(expired.body.message).toMatch(/unknown or expired/)
  })

  it(`keeps at most ${SNAPSHOT_LIMIT} snapshots, evicting the least recently used`, async () => {
    await deposits(100, 200, 300)
    const make = async () => (await api.list('perPage=2')).body.snapshot!
    const oldest = await make()
    const second = await make()
    for (let made = 2; made < SNAPSHOT_LIMIT; made += 1) await make()
    const page2 = (id: string) => api.list(`perPage=2&page=2&snapshot=${id}`)
    // Using the oldest makes it the most recent: the next new one evicts the second instead.
    expect((await page2(oldest)).status).toBe(200)
    await make()
    expect((await page2(oldest)).status).toBe(200)
    expect((await page2(second)).status).toBe(422)
  })
})

describe('POST /_sandbox/deposits', () => {
  let sandbox: Sandbox
  let api: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox()
    api = await connect(sandbox)
  })
  afterAll(() => sandbox.close())

  it('makes a PIX-key deposit waiting in DEPOSIT_PIXKEY_GENERATED, which the listing shows', async () => {
    const {status, body} = await api.post('/_sandbox/deposits', {amount: 12_345})
    expect(status).toBe(201)
    expect(body).toMatchObject({amount: 12_345, status: 'DEPOSIT_PIXKEY_GENERATED', depositOrigin: 'PIX_KEY', paymentMethod: 'PIX'})
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(body.statusHistory.map((entry) => entry.status)).toEqual(['DEPOSIT_PIXKEY_GENERATED'])
    expect(body).not.toHaveProperty('pixResponse')
    expect(body).not.toHaveProperty('payer')
    const listed = (await api.list('depositOrigin=PIX_KEY&status=DEPOSIT_PIXKEY_GENERATED')).body.data
    expect(listed.find((deposit) => deposit.id === body.id)).toMatchObject({amount: 12_345, depositOrigin: 'PIX_KEY'})
  })

  it.each(DEPOSIT_STATUSES)('makes one in %s with the fields its life implies', async (wanted) => {
    const {status, body} = await api.post('/_sandbox/deposits', {amount: 5000, status: wanted})
    expect(status).toBe(201)
    expect(body.status).toBe(wanted)
    const history = body.statusHistory.map((entry) => entry.status)
    expect(history.at(-1)).toBe(wanted)
    if (history.includes('PAID')) {
      expect(body).toMatchObject({amountPaid: 5000, paymentDate: expect.any(String), endToEnd: expect.stringMatching(/^E/)})
      expect(body.payer?.document).toMatch(/^\*+/)
    } else {
      expect(body).not.toHaveProperty('payer')
    }
    if (wanted === 'REFUNDED') expect(body).toMatchObject({refundAmount: 5000, endToEndRefund: expect.stringMatching(/^D/)})
    if (wanted === 'FAILED') expect(body.errorMessage).toBeTruthy()
    if (wanted === 'PENDING_COMPLIANCE') expect(history).toEqual(['DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE'])
    const listed = (await api.list(`status=${wanted}&depositOrigin=PIX_KEY`)).body.data
    expect(ids(listed)).toContain(body.id)
  })

  const bad: Array<[what: string, body: unknown, messages: RegExp[]]> = [
    ['no amount', {}, [/^amount is required$/]],
    ['a zero amount', {amount: 0}, [/^amount must be from 1 to 10000000 cents$/]],
    ['a decimal amount', {amount: 10.5}, [/^amount must be .*no decimals/]],
    ['an amount over the maximum', {amount: 10_000_001}, [/^amount must be from 1 to 10000000 cents$/]],
    ['an amount as text', {amount: '100'}, [/^amount must be an integer number of cents/]],
    ['an unknown status', {amount: 100, status: 'DONE'}, [/^status must be one of PENDING, /]],
    ['an unknown field', {amount: 100, color: 'blue'}, [/^\(body\) unknown field color$/]],
    ['two problems', {amount: -1, status: 'DONE'}, [/^amount /, /^status /]],
  ]

  it.each(bad)('answers 422 for %s', async (_what, body, messages) => {
    const answer = await api.post<ErrorBody>('/_sandbox/deposits', body)
    expect(answer.status).toBe(422)
    expect(answer.body.message).toEqual(messages.map((message) => expect.stringMatching(message)))
  })

  it('answers 422 for a body that is not JSON', async () => {
    expect((await api.post<ErrorBody>('/_sandbox/deposits', 'amount=100', 'application/x-www-form-urlencoded')).status).toBe(422)
    expect((await api.post<ErrorBody>('/_sandbox/deposits', '{"amount":')).status).toBe(422)
  })

  it('makes a deposit the pay control can pay from PENDING_COMPLIANCE', async () => {
    const {body} = await api.post('/_sandbox/deposits', {amount: 777, status: 'PENDING_COMPLIANCE'})
    const paid = await api.post(`/_sandbox/transactions/${body.id}/pay`, {})
    expect(paid.status).toBe(200)
    const listed = (await api.list('status=PAID&depositOrigin=PIX_KEY')).body.data.find((deposit) => deposit.id === body.id)
    expect(listed?.statusHistory.map((entry) => entry.status)).toEqual(['DEPOSIT_PIXKEY_GENERATED', 'PENDING_COMPLIANCE', 'PAID'])
    expect(listed).toMatchObject({amountPaid: 777, depositOrigin: 'PIX_KEY'})
  })

  it('is a sandbox control: counted in the stats, never hit by faults injected into the API', async () => {
    const before = await stats(sandbox.baseUrl)
    expect((await control(sandbox.baseUrl, '/_sandbox/faults', {route: '*', status: 503, count: 1})).status).toBe(204)
    expect((await api.post('/_sandbox/deposits', {amount: 100})).status).toBe(201)
    expect((await api.list<ErrorBody>('')).status).toBe(503)
    expect((await api.list('')).status).toBe(200)
    const after = await stats(sandbox.baseUrl)
    expect(after.byRoute['POST /_sandbox/deposits']).toBe((before.byRoute['POST /_sandbox/deposits'] ?? 0) + 1)
    expect(after.byRoute['GET /core/deposit']).toBe((before.byRoute['GET /core/deposit'] ?? 0) + 2)
  })
})

describe('transactions as deposits', () => {
  let sandbox: Sandbox
  let api: Client

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 50})
    api = await connect(sandbox)
  })
  afterAll(() => sandbox.close())

  it('lists every transaction as a QRCODE deposit, without the QR image, and seeds QR codes with the same history', async () => {
    const created = await api.post<{id: string; pixResponse: {uri: string; qrCodeBase64: string}}>('/core/transaction', {
      amount: 4321,
      paymentMethod: 'PIX',
      idempotencyKey: 'deposits-test-0001',
      pix: {},
    })
    expect(created.status).toBe(201)
    expect(created.body.pixResponse.qrCodeBase64).toMatch(/^data:image\/png;base64,/)
    const {data} = (await api.list('depositOrigin=QRCODE&perPage=100')).body
    const listed = data.find((deposit) => deposit.id === created.body.id)
    expect(listed).toMatchObject({amount: 4321, status: 'PIX_QRCODE_GENERATED', depositOrigin: 'QRCODE', pixResponse: {uri: created.body.pixResponse.uri}})
    expect(listed?.pixResponse).not.toHaveProperty('qrCodeBase64')
    expect(listed).not.toHaveProperty('isInfoProduct')
    const liveStart = listed!.statusHistory.map((entry) => entry.status)
    const seeded = data.filter((deposit) => deposit.id !== created.body.id && deposit.status !== 'PENDING')
    expect(seeded.length).toBeGreaterThan(0)
    for (const deposit of seeded) expect(deposit.statusHistory.slice(0, 2).map((entry) => entry.status)).toEqual(liveStart)
  })
})
