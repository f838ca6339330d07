import {Flags, type Interfaces} from '@oclif/core'

import type {FlagTable} from './fields.js'

/** The oclif flag definitions of a table. */
export function flagsOf(table: FlagTable): Interfaces.FlagInput {
  const flags: Interfaces.FlagInput = {}
  for (const field of table) {
    const common = {description: field.description, helpGroup: field.helpGroup}
    if (field.sets !== undefined) flags[field.flag] = Flags.boolean(common)
    else if (field.multiple) flags[field.flag] = Flags.string({...common, helpValue: field.helpValue, multiple: true, options: field.options as string[] | undefined})
    else flags[field.flag] = Flags.string({...common, helpValue: field.helpValue, options: field.options as string[] | undefined})
  }
  return flags
}
