// The fast path's table (read off the command classes at build time) and its plan (the reading of
// a command line): what the table cannot hold fails the build; what the plan does not read exactly
// as oclif would goes to oclif.
import {Args, Command, Flags} from '@oclif/core'
import {describe, expect, it} from 'vitest'

// @ts-expect-error: a build script, in JavaScript.
import {commandTable, FAST_COMMANDS} from '../../scripts/fast-table.mjs'
import TxCreate from '../../src/commands/tx/create.js'
import TxGet from '../../src/commands/tx/get.js'
import {globalFlags} from '../../src/base-command.js'
import {plan, type FastTable} from '../../src/fast/plan.js'
import {TRANSACTION_STATUSES} from '../../src/schemas/enums.js'

/** A command class with these flags and arguments, as oclif would see it. */
function commandWith(flags: Record<string, unknown>, args: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
  return Object.assign(class extends Command {
    async run() {}
  }, {flags, args, baseFlags: {}, enableJsonFlag: true, ...more})
}

describe('the fast path table', () => {
  it('is read off the command classes the fast path runs', () => {
    const create = commandTable('tx:create', TxCreate, ['batch'])
    expect(create.words).toEqual(['tx', 'create'])
    expect(create.bundle).toBe('fast-tx-create.cjs')
    // Every flag oclif reads for the command is in the table, and no other.
    expect(Object.keys(create.flags).sort()).toEqual(['json', ...Object.keys(globalFlags), ...Object.keys(TxCreate.flags)].filter((name, index, all) => all.indexOf(name) === index).sort())
    expect(create.flags.amount).toEqual({type: 'option'})
    expect(create.flags.item).toEqual({type: 'option', multiple: true})
    expect(create.flags.profile).toEqual({type: 'option', env: 'GATEWAY_PROFILE', default: 'default'})
    // Read by code of its own, checked against other flags, or declined: left to oclif when typed.
    for (const name of ['timeout', 'fields', 'batch', 'yes', 'dry-run', 'output', 'retries']) expect(create.flags[name].oclif, name).toBe(true)
    const get = commandTable('tx:get', TxGet)
    expect(get.args).toEqual([{name: 'id', required: true}])
    expect(get.flags.output).toEqual({type: 'option', options: ['table', 'json', 'ndjson', 'csv']})
    // Its values, any case, are its options (for help and completion); its parser reads them: left to oclif.
    expect(get.flags.until).toEqual({type: 'option', default: 'PAID', options: [...TRANSACTION_STATUSES], oclif: true})
    expect(FAST_COMMANDS.map(({id}: {id: string}) => id)).toEqual(['tx:create', 'tx:get'])
  })

  it('fails the build, naming each, on a flag or argument it cannot hold', () => {
    const cases: Array<[ReturnType<typeof commandWith>, RegExp, string[]?]> = [
      [commandWith({when: Flags.string({default: async () => 'now'})}), /--when computes its default when run/],
      [commandWith({odd: {...Flags.string(), shape: 'round'}}), /--odd has "shape", which the fast path's table does not know/],
      [commandWith({odd: {...Flags.string(), type: 'weird'}}), /--odd is of type "weird"/],
      [commandWith({a: Flags.boolean({exactlyOne: ['a', 'b']}), b: Flags.boolean({exactlyOne: ['a', 'b']})}), /--a is one of flags of which exactly one is needed/],
      [commandWith({a: Flags.string({default: 'x', dependsOn: ['b']}), b: Flags.string()}), /--a has both a default and a relationship/],
      [commandWith({when: Flags.string({default: {} as unknown as string})}), /--when has a default that is not plain JSON/],
      [commandWith({}, {id: Args.string({parse: async (input) => input.trim()})}), /argument id is read by code of its own/],
      [commandWith({}, {ids: Args.string({multiple: true} as never)}), /argument ids takes many values/],
      [commandWith({}, {}, {strict: false}), /strict is off/],
      [commandWith({}), /it declines --batch, which it does not have/, ['batch']],
    ]
    for (const [command, message, declines] of cases) expect(() => commandTable('x:y', command, declines)).toThrow(message)
    // Several at once are all named.
    expect(() => commandTable('x:y', commandWith({a: Flags.string({default: async () => 'a'}), b: Flags.string({default: async () => 'b'})}))).toThrow(/--a computes.*; --b computes/)
  })
})

describe('the fast path plan', () => {
  const table: FastTable = {
    'tx:get': commandTable('tx:get', TxGet),
    'tx:create': commandTable('tx:create', TxCreate, ['batch']),
  }
  const id = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'
  const read = (argv: string[], env: NodeJS.ProcessEnv = {}) => plan(table, argv, env)

  it('reads a whole line as oclif hands it to the command: flags, defaults, variables, arguments', () => {
    expect(read(['tx', 'get', id, '--json'])).toEqual({
      id: 'tx:get',
      bundle: 'fast-tx-get.cjs',
      flags: {json: true, profile: 'default', retries: 3, interval: 2000, until: 'PAID'},
      args: {id},
      argv: [id, '--json'],
    })
    expect(read(['tx', 'get', '--output=csv', id], {GATEWAY_PROFILE: 'ops', GATEWAY_BASE_URL: 'https://gw.example'})?.flags).toMatchObject({output: 'csv', profile: 'ops', 'base-url': 'https://gw.example'})
    // A flag typed wins over its variable; an empty variable counts as unset, as oclif reads it.
    expect(read(['tx', 'get', id, '--profile', 'a'], {GATEWAY_PROFILE: 'b'})?.flags.profile).toBe('a')
    expect(read(['tx', 'get', id], {GATEWAY_PROFILE: ''})?.flags.profile).toBe('default')
    const create = read(['tx', 'create', '--amount', '1000', '--item', 'title=A,unitPrice=1', '--item', 'title=B,unitPrice=2', '--physical', '--body', '-'])
    expect(create?.flags).toMatchObject({amount: '1000', item: ['title=A,unitPrice=1', 'title=B,unitPrice=2'], physical: true, body: '-'})
    // A value that is itself a dash alone is a value (stdin), and so is `-` as an argument.
    expect(read(['tx', 'get', '-'])?.args).toEqual({id: '-'})
  })

  it('leaves to oclif every line it would not read exactly as oclif does', () => {
    const declined: Array<[string[], NodeJS.ProcessEnv?]> = [
      [['tx', 'get']],
      [['tx', 'get', id, 'extra']],
      [['tx', 'get', id, '--help']],
      [['tx', 'get', id, '-h']],
      [['tx', 'get', id, '--version']],
      [['tx', 'get', id, '--', '--json']],
      [['tx', 'get', id, '--json', '--json']],
      [['tx', 'get', id, '--json=true']],
      [['tx', 'get', id, '--output', 'xml']],
      [['tx', 'get', id, '--output']],
      [['tx', 'get', id, '--output', '--json']],
      [['tx', 'get', id, '--output=']],
      [['tx', 'get', id, '--timeout', '5s']],
      [['tx', 'get', id, '--fields', 'id']],
      [['tx', 'get', id, '--watch', '--until', 'paid']],
      [['tx', 'get', id, '--no-json']],
      [['tx', 'get', id, '--jsn']],
      [['tx', 'get', '-5']],
      [['tx', 'get', id], {GATEWAY_RETRIES: '1'}],
      [['tx', 'get', id], {GATEWAY_CONTENT_TYPE: 'json'}],
      [['tx:get', id]],
      [['--profile', 'a', 'tx', 'get', id]],
      [['tx']],
      [['deposits', 'list']],
      [['tx', 'create', '--batch', 'orders.csv']],
      [['tx', 'create', '--amount', '1', '--amount', '2']],
      [['tx', 'create', '--amount', '-5']],
      [['tx', 'create', '--amount', '1', '-y']],
      [['tx', 'create', '--amount', '1', '--yes']],
      [['tx', 'create', '--amount', '1', '--dry-run']],
      // oclif gives the words after a repeatable flag's value to that flag.
      [['tx', 'create', '--item', 'title=A,unitPrice=1', 'title=B']],
      [['tx', 'create', '--item', 'title=A,unitPrice=1', '--json', 'more']],
      [['tx', 'create', 'stray']],
    ]
    for (const [argv, env] of declined) expect(read(argv, env), argv.join(' ')).toBeUndefined()
  })
})
