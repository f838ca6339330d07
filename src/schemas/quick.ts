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

/**
 * What a quick check reads, as plain data: made from a zod contract by shapeOf, and turned into a
 * predicate by checkOf, which needs nothing of zod. The build writes the answer contracts' shapes
 * into contract-shapes.json, so that a command reads an answer without loading zod at all unless the
 * answer fails its check.
 */
export type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'unknown'
  | {literal: unknown[]}
  | {enum: string[]}
  | {optional: Shape}
  | {nullable: Shape}
  | {array: Shape}
  | {union: Shape[]}
  | {record: Shape}
  | {object: [name: string, field: Shape][]}

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
  if (!made.has(schema)) {
    const shape = shapeOf(schema)
    made.set(schema, shape === undefined ? null : checkOf(shape))
  }
  return made.get(schema) ?? undefined
}

/** The shape of a zod contract, or undefined when its meaning is not plain (see quickCheck). */
export function shapeOf(schema: z.ZodType): Shape | undefined {
  const def = definitionOf(schema)
  if (!def || (def.checks && def.checks.length > 0) || def.coerce || def.format !== undefined) return undefined
  const inner = (of?: z.ZodType) => (of ? shapeOf(of) : undefined)
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'unknown':
      return def.type
    case 'any':
      return 'unknown'
    case 'literal':
      return {literal: [...(def.values ?? [])]}
    case 'enum': {
      const values = Object.values(def.entries ?? {})
      return values.every((value) => typeof value === 'string') ? {enum: values as string[]} : undefined
    }
    case 'optional': {
      const shape = inner(def.innerType)
      return shape && {optional: shape}
    }
    case 'nullable': {
      const shape = inner(def.innerType)
      return shape && {nullable: shape}
    }
    case 'array': {
      const shape = inner(def.element)
      return shape && {array: shape}
    }
    case 'union': {
      if (def.discriminator !== undefined || !def.options) return undefined
      const options = def.options.map((option) => shapeOf(option))
      return options.every((option) => option !== undefined) ? {union: options as Shape[]} : undefined
    }
    case 'record': {
      const key = def.keyType && definitionOf(def.keyType)
      const item = inner(def.valueType)
      if (!key || key.type !== 'string' || (key.checks && key.checks.length > 0) || !item) return undefined
      return {record: item}
    }
    case 'object': {
      // Unknown keys are stripped (no catchall) or kept (unknown); a strict object is zod's to read.
      if (def.catchall && definitionOf(def.catchall).type !== 'unknown') return undefined
      const fields: [string, Shape][] = []
      for (const [name, field] of Object.entries(def.shape ?? {})) {
        const shape = shapeOf(field)
        if (!shape) return undefined
        fields.push([name, shape])
      }
      return {object: fields}
    }
    default:
      return undefined
  }
}

/** The predicate a shape describes: true when zod would accept the value (see quickCheck). */
export function checkOf(shape: Shape): QuickCheck {
  switch (shape) {
    case 'string':
      return (value) => typeof value === 'string'
    case 'number':
      return (value) => typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return (value) => typeof value === 'boolean'
    case 'unknown':
      return () => true
  }
  if ('literal' in shape) {
    const values = shape.literal
    return (value) => values.includes(value)
  }
  if ('enum' in shape) {
    const values: unknown[] = shape.enum
    return (value) => typeof value === 'string' && values.includes(value)
  }
  if ('optional' in shape) {
    const inner = checkOf(shape.optional)
    return (value) => value === undefined || inner(value)
  }
  if ('nullable' in shape) {
    const inner = checkOf(shape.nullable)
    return (value) => value === null || inner(value)
  }
  if ('array' in shape) {
    const element = checkOf(shape.array)
    return (value) => {
      if (!Array.isArray(value)) return false
      for (const item of value) if (!element(item)) return false
      return true
    }
  }
  if ('union' in shape) {
    const checks = shape.union.map((option) => checkOf(option))
    return (value) => checks.some((check) => check(value))
  }
  if ('record' in shape) {
    const item = checkOf(shape.record)
    return (value) => {
      if (!isPlainObject(value)) return false
      for (const name of Object.keys(value)) if (!item((value as Record<string, unknown>)[name])) return false
      return true
    }
  }
  // zod refuses a missing key unless its field is optional, whatever the field's kind.
  const fields = shape.object.map(([name, field]) => [name, checkOf(field), typeof field === 'object' && 'optional' in field] as const)
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    for (const [name, check, optional] of fields) {
      const field = (value as Record<string, unknown>)[name]
      if (field === undefined ? !optional : !check(field)) return false
    }
    return true
  }
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}
