import {boolean, string} from '@oclif/core/flags'
import type {FlagInput} from '@oclif/core/interfaces'

import type {FlagTable} from './fields.js'

/** oclif's flag builders, taken by name: a namespace import of a CommonJS module would copy the whole module when loaded. */
const Flags = {boolean, string}

/** The oclif flag definitions of a table. */
export function flagsOf(table: FlagTable): FlagInput {
  const flags: FlagInput = {}
  for (const field of table) {
    const common = {description: field.description, helpGroup: field.helpGroup}
    if (field.sets !== undefined) flags[field.flag] = Flags.boolean(common)
    else if (field.multiple) flags[field.flag] = Flags.string({...common, helpValue: field.helpValue, multiple: true, options: field.options as string[] | undefined})
    else flags[field.flag] = Flags.string({...common, helpValue: field.helpValue, options: field.options as string[] | undefined})
  }
  return flags
}
