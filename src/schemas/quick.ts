import type {z} from 'zod'

/** Whether a value holds to a contract, answered without building anything. */
export type QuickCheck = (value: unknown) => boolean

/** The inner definition zod keeps for every schema: its kind, and what that kind is made of. */
interface Definition {
  type: string
  checks?: unknown[]
  coerce?: boolean
  format?: string
  shape?: Record<string, z.ZodType>
  catchall?: z.ZodType
  element?: z.ZodType
  innerType?: z.ZodType
  options?: z.ZodType[]
  discriminator?: string
  values?: unknown[]
  entries?: Record<string, unknown>
  keyType?: z.ZodType
  valueType?: z.ZodType
}

const definitionOf = (schema: z.ZodType) => (schema as unknown as {_zod: {def: Definition}})._zod.def
const made = new WeakMap<z.ZodType, QuickCheck | null>()

/**
 * A predicate made from a zod contract, for reading a large answer (a page of deposits holds a
 * hundred records of some sixty values each): zod's own parse builds a copy of every object and a
 * result for every value, which for a long export is most of the work per page and much of its
 * garbage. The predicate reads the value and builds nothing.
 *
 * It is made from the contract itself, so there is no second description to keep, and only for
 * the kinds whose meaning is plain: objects (unknown keys allowed, as zod strips them), arrays,
 * strings, finite numbers, booleans, literals, enums of strings, optional and nullable, unions,
 * records of string keys, and unknown, none with checks, refinements or coercion of their own.
 * For any other contract there is no predicate (undefined), and zod reads the value.
 *
 * True means zod would accept the value. False only means "ask zod", which then accepts the value
 * or says what is wrong with it, in its words: a refused answer is always explained by zod.
 */
export function quickCheck(schema: z.ZodType): QuickCheck | undefined {
  if (!made.has(schema)) made.set(schema, build(schema) ?? null)
  return made.get(schema) ?? undefined
}

function build(schema: z.ZodType): QuickCheck | undefined {
  const def = definitionOf(schema)
  if (!def || (def.checks && def.checks.length > 0) || def.coerce || def.format !== undefined) return undefined
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string'
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return (value) => typeof value === 'boolean'
    case 'unknown':
    case 'any':
      return () => true
    case 'literal': {
      const values = def.values ?? []
      return (value) => values.includes(value)
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {})
      if (!values.every((value) => typeof value === 'string')) return undefined
      return (value) => typeof value === 'string' && values.includes(value)
    }
    case 'optional': {
      const inner = def.innerType && quickCheck(def.innerType)
      if (!inner) return undefined
      return (value) => value === undefined || inner(value)
    }
    case 'nullable': {
      const inner = def.innerType && quickCheck(def.innerType)
      if (!inner) return undefined
      return (value) => value === null || inner(value)
    }
    case 'array': {
      const element = def.element && quickCheck(def.element)
      if (!element) return undefined
      return (value) => {
        if (!Array.isArray(value)) return false
        for (const item of value) if (!element(item)) return false
        return true
      }
    }
    case 'union': {
      if (def.discriminator !== undefined || !def.options) return undefined
      const options = def.options.map((option) => quickCheck(option))
      if (!options.every(Boolean)) return undefined
      const checks = options as QuickCheck[]
      return (value) => checks.some((check) => check(value))
    }
    case 'record': {
      const key = def.keyType && definitionOf(def.keyType)
      const item = def.valueType && quickCheck(def.valueType)
      if (!key || key.type !== 'string' || (key.checks && key.checks.length > 0) || !item) return undefined
      return (value) => {
        if (!isPlainObject(value)) return false
        for (const name of Object.keys(value)) if (!item((value as Record<string, unknown>)[name])) return false
        return true
      }
    }
    case 'object': {
      // Unknown keys are stripped (no catchall) or kept (unknown); a strict object is zod's to read.
      if (def.catchall && definitionOf(def.catchall).type !== 'unknown') return undefined
      const fields: [name: string, check: QuickCheck, optional: boolean][] = []
      for (const [name, field] of Object.entries(def.shape ?? {})) {
        const check = quickCheck(field)
        if (!check) return undefined
        fields.push([name, check, definitionOf(field).type === 'optional'])
      }
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
        for (const [name, check, optional] of fields) {
          const field = (value as Record<string, unknown>)[name]
          // zod refuses a missing key unless its field is optional, whatever the field's kind.
          if (field === undefined ? !optional : !check(field)) return false
        }
        return true
      }
    }
    default:
      return undefined
  }
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
