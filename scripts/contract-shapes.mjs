// The answer contracts' shapes (src/schemas/contract-shapes.json), from the contracts as tsc built
// them (dist/schemas/records.js): what the client checks an answer against before it loads zod.
// The build writes the file when it differs; test/schemas/quick.test.ts fails when it is stale.
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

/** The text of contract-shapes.json for the contracts in `dist` (tsc's output): each shape by its contract's name, null where zod reads the answer alone. */
export async function contractShapesSource(dist) {
  const {ANSWER_CONTRACTS} = await import(pathToFileURL(join(dist, 'schemas', 'records.js')).href)
  const {shapeOf} = await import(pathToFileURL(join(dist, 'schemas', 'quick.js')).href)
  const shapes = {}
  for (const [name, schema] of Object.entries(ANSWER_CONTRACTS)) {
    const shape = shapeOf(schema) ?? null
    // Written as JSON: a literal JSON cannot hold (undefined, a bigint) would be read otherwise.
    if (!sameValue(JSON.parse(JSON.stringify(shape)), shape)) {
      throw new Error(`the contract "${name}" has a value JSON cannot hold: its shape cannot be written`)
    }
    shapes[name] = shape
  }
  return `{\n${Object.entries(shapes).map(([name, shape]) => ` ${JSON.stringify(name)}: ${format(shape, ' ')}`).join(',\n')}\n}\n`
}

function sameValue(a, b) {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const keys = Object.keys(b)
  return Array.isArray(a) === Array.isArray(b) && Object.keys(a).length === keys.length && keys.every((key) => Object.hasOwn(a, key) && sameValue(a[key], b[key]))
}


/** A shape as JSON, an object's fields one to a line. */
function format(shape, indent) {
  if (shape === null || typeof shape !== 'object') return JSON.stringify(shape)
  const [kind, inner] = Object.entries(shape)[0]
  if (kind === 'object') {
    if (inner.length === 0) return '{"object": []}'
    const inside = `${indent} `
    return `{"object": [\n${inner.map(([name, field]) => `${inside}[${JSON.stringify(name)}, ${format(field, inside)}]`).join(',\n')}\n${indent}]}`
  }
  if (kind === 'union') return `{"union": [${inner.map((option) => format(option, indent)).join(', ')}]}`
  if (kind === 'literal' || kind === 'enum') return `{"${kind}": ${JSON.stringify(inner)}}`
  return `{"${kind}": ${format(inner, indent)}}`
}
