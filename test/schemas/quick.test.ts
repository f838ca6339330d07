import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

import shapes from '../../src/schemas/contract-shapes.json' with {type: 'json'}
import {checkOf, quickCheck, shapeOf, type Shape} from '../../src/schemas/quick.js'
import {ANSWER_CONTRACTS, contractProblem, type AnswerContract, createTransactionAnswerSchema, depositPageAnswerSchema, transactionAnswerSchema, withdrawAnswerSchema} from '../../src/schemas/records.js'
import {startTestSandbox, tokenFor, type Sandbox} from '../helpers/sandbox.js'

/** The shapes the build wrote (src/schemas/contract-shapes.json), as the client reads them. */
const CONTRACT_SHAPES = shapes as Partial<Record<AnswerContract, Shape | null>>

/** A copy of a JSON value with the value at one path replaced (or its key removed, when `to` is undefined). */
function mutate(value: unknown, path: readonly (string | number)[], to: unknown): unknown {
  if (path.length === 0) return to
  const copy: unknown = structuredClone(value)
  let at = copy as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>
  const last = path.at(-1)!
  if (to === undefined && !Array.isArray(at)) delete at[last]
  else at[last] = to
  return copy
}

/** Every path into a JSON value (objects' keys and arrays' indexes), the value itself first. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix]
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])))
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]))
  return paths
}

describe('quick contract checks', () => {
  let sandbox: Sandbox
  let page: unknown

  beforeAll(async () => {
    sandbox = await startTestSandbox({seedDeposits: 60})
    const token = await tokenFor(sandbox.baseUrl)
    const response = await fetch(`${sandbox.baseUrl}/core/deposit?perPage=100`, {headers: {authorization: `Bearer ${token}`}})
    page = await response.json()
  })
  afterAll(() => sandbox.close())

  it('are made for every answer contract of the client', () => {
    for (const schema of [depositPageAnswerSchema, transactionAnswerSchema, createTransactionAnswerSchema, withdrawAnswerSchema]) expect(quickCheck(schema)).toBeTypeOf('function')
  })

  it('are written by the build for every answer contract, as the contracts are today (run npm run build when this fails)', () => {
    expect(Object.keys(CONTRACT_SHAPES).sort()).toEqual(Object.keys(ANSWER_CONTRACTS).sort())
    for (const [name, schema] of Object.entries(ANSWER_CONTRACTS)) {
      const shape = CONTRACT_SHAPES[name as AnswerContract]
      expect(shape, name).toBeTruthy()
      expect(shape, name).toEqual(shapeOf(schema))
    }
  })

  it('accept a page of deposits as the sandbox answers it, made from the schema or read from the written shape', () => {
    expect((page as {data: unknown[]}).data.length).toBeGreaterThanOrEqual(60)
    expect(depositPageAnswerSchema.safeParse(page).success).toBe(true)
    expect(quickCheck(depositPageAnswerSchema)!(page)).toBe(true)
    expect(checkOf(CONTRACT_SHAPES.depositPage!)(page)).toBe(true)
  })

  it('answer as zod does for a page with any one value replaced or removed, made from the schema or read from the written shape (with nothing of zod)', () => {
    // Paths into the page's first two records and its paging fields: every kind of field.
    const paths = pathsOf(page).filter((path) => path[0] !== 'data' || path.length === 1 || (path[1] as number) < 2)
    for (const check of [quickCheck(depositPageAnswerSchema)!, checkOf(CONTRACT_SHAPES.depositPage!)]) {
      fc.assert(
        fc.property(fc.constantFrom(...paths), fc.option(fc.jsonValue(), {nil: undefined}), (path, to) => {
          const changed = mutate(page, path, to)
          expect(check(changed)).toBe(depositPageAnswerSchema.safeParse(changed).success)
        }),
        {numRuns: 1000},
      )
    }
  })

  it('never accept what zod refuses, for any value and any of the kinds they read', () => {
    const schemas = [
      z.object({id: z.string(), amount: z.number(), tags: z.array(z.string()).optional()}),
      z.object({note: z.string().nullable().optional(), any: z.unknown(), kind: z.literal('PIX'), origin: z.enum(['A', 'B'])}),
      z.union([z.string(), z.object({value: z.string(), type: z.string()})]),
      z.record(z.string(), z.unknown()),
      z.array(z.boolean()),
      z.object({loose: z.number()}).passthrough(),
    ]
    for (const schema of schemas) {
      const check = quickCheck(schema)!
      expect(check).toBeTypeOf('function')
      fc.assert(
        fc.property(fc.anything({withNullPrototype: true, withObjectString: true, withSparseArray: true}), (value) => {
          if (check(value)) expect(schema.safeParse(value).success).toBe(true)
        }),
        {numRuns: 500},
      )
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          expect(check(value)).toBe(schema.safeParse(value).success)
        }),
        {numRuns: 500},
      )
    }
  })

  it('leave to zod the contracts with checks, formats, coercion, strict objects or refinements', () => {
    for (const schema of [z.string().min(1), z.email(), z.int(), z.coerce.number(), z.object({a: z.string()}).strict(), z.object({a: z.string()}).refine(() => true), z.object({a: z.string().regex(/x/)}), z.date()]) {
      expect(quickCheck(schema as z.ZodType)).toBeUndefined()
    }
  })

  it('still leave the explanation of a refused answer to zod', () => {
    const changed = mutate(page, ['data', 1, 'amount'], '12')
    expect(contractProblem(depositPageAnswerSchema, changed)).toBe('data.1.amount: expected number, got string')
    expect(contractProblem(depositPageAnswerSchema, page)).toBeUndefined()
  })
})
