// The fast path's reading of a command line: oclif's parser with the definitions the command's
// class declares (the same objects; the build refuses a fast entry whose definitions are not its
// class's), and, for a line oclif must take, no reading of its own: a help flag, `--`, anything the
// parser refuses, a declined flag.
import * as Flags from '@oclif/core/flags'
import {describe, expect, it} from 'vitest'

// @ts-expect-error: a build script, in JavaScript.
import {FAST_COMMANDS, fastCommandProblems} from '../../scripts/fast-table.mjs'
import DepositsList from '../../src/commands/deposits/list.js'
import TxCreate from '../../src/commands/tx/create.js'
import TxGet from '../../src/commands/tx/get.js'
import {globalFlags} from '../../src/cli/flags.js'
import {commandFlags, jsonRequested, readCommandLine} from '../../src/cli/life-cycle.js'
import {depositsListFlags} from '../../src/deposits/list-flags.js'
import {command as fastList} from '../../src/fast/deposits-list.js'
import {readFast, type FastCommand} from '../../src/fast/hot.js'
import {command as fastCreate} from '../../src/fast/tx-create.js'
import {command as fastGet} from '../../src/fast/tx-get.js'
import {txCreateFlags} from '../../src/tx/create-flags.js'
import {txGetArgs, txGetFlags} from '../../src/tx/get-flags.js'

const HELP = ['--help', '-h']
const id = '3f0c1c8e-2a4b-4f7e-9d51-6b8f0a6e2c11'

describe('the fast entries', () => {
  it('read with the very definitions their classes declare', () => {
    expect(FAST_COMMANDS.map(({id}: {id: string}) => id)).toEqual(['tx:create', 'tx:get', 'deposits:list'])
    expect(TxCreate.flags).toBe(txCreateFlags)
    expect(fastCreate.definition.flags).toBe(TxCreate.flags)
    expect(fastCreate.definition.baseFlags).toBe(TxCreate.baseFlags)
    expect(TxGet.flags).toBe(txGetFlags)
    expect(TxGet.args).toBe(txGetArgs)
    expect(fastGet.definition.flags).toBe(TxGet.flags)
    expect(fastGet.definition.args).toBe(TxGet.args)
    expect(fastGet.definition.baseFlags).toBe(globalFlags)
    expect(fastCommandProblems('tx:create', TxCreate, fastCreate)).toEqual([])
    expect(fastCommandProblems('tx:get', TxGet, fastGet)).toEqual([])
    expect(DepositsList.flags).toBe(depositsListFlags)
    expect(fastList.definition.flags).toBe(DepositsList.flags)
    expect(fastList.definition.baseFlags).toBe(DepositsList.baseFlags)
    expect(fastCommandProblems('deposits:list', DepositsList, fastList)).toEqual([])
    // Every flag oclif reads: its own --json first, then the base flags, then the command's.
    expect(Object.keys(commandFlags(fastGet.definition))).toEqual(['json', ...Object.keys(globalFlags), ...Object.keys(txGetFlags).filter((name) => name !== 'json' && !(name in globalFlags))])
  })

  it('fail the build, naming each, when the fast entry could part from its class', () => {
    const copy = {...fastGet, definition: {...fastGet.definition, flags: {...txGetFlags}}}
    expect(fastCommandProblems('tx:get', TxGet, copy)).toEqual(['its fast entry does not read the flags its class declares'])
    const lax = {...fastGet, definition: {...fastGet.definition, strict: false}}
    expect(fastCommandProblems('tx:get', TxGet, lax)).toEqual(['its fast entry and its class differ on strict'])
    const stdin = Object.assign(class extends TxGet {}, {flags: {...txGetFlags, note: Flags.string({allowStdin: true})}})
    expect(fastCommandProblems('tx:get', stdin, {...fastGet, definition: {...fastGet.definition, flags: stdin.flags}})).toEqual(['--note may be read from stdin by the parser'])
    const deprecated = Object.assign(class extends TxGet {}, {state: 'deprecated'})
    expect(fastCommandProblems('tx:get', deprecated, fastGet)).toEqual(['it is deprecated, which oclif says when it runs'])
    expect(fastCommandProblems('tx:get', TxGet, fastGet, {preparse: './hook.js'})).toHaveLength(1)
    expect(fastCommandProblems('tx:get', TxGet, {...fastGet, declines: ['batch']})).toEqual(['it declines --batch, which it does not have'])
    expect(fastCommandProblems('tx:get', TxGet, {...fastGet, declines: ['until']})).toEqual(['it declines --until, which has a value even when not typed'])
  })
})

describe('the fast reading', () => {
  const read = (command: FastCommand, argv: string[]) => readFast(command, argv, HELP)

  it('is oclif\'s parser\'s reading: flags, defaults, parsed values, arguments', async () => {
    const words = [id, '--json', '--timeout', '5s', '--until', 'paid', '--fields', 'id,status', '--retries', '0']
    const line = await read(fastGet, words)
    expect(line?.args).toEqual({id})
    expect(line?.flags).toMatchObject({json: true, timeout: 5000, until: 'PAID', fields: 'id,status', retries: 0, interval: 2000, profile: 'default'})
    expect(line).toEqual(await readCommandLine(fastGet.definition, words))
    const create = await read(fastCreate, ['--amount', '1000', '--item', 'title=A,unitPrice=1', '--item', 'title=B,unitPrice=2', '--physical', '--body', '-'])
    expect(create?.flags).toMatchObject({amount: '1000', item: ['title=A,unitPrice=1', 'title=B,unitPrice=2'], physical: true, body: '-'})
    const list = await read(fastList, ['--all', '--status', 'paid', '--output', 'csv', '--no-interactive'])
    expect(list?.flags).toMatchObject({all: true, status: ['paid'], output: 'csv', interactive: false, concurrency: 4})
    expect(list).toEqual(await readCommandLine(fastList.definition, ['--all', '--status', 'paid', '--output', 'csv', '--no-interactive']))
  })

  it('leaves to oclif, having read nothing, every line oclif must take', async () => {
    const declined: Array<[FastCommand, string[]]> = [
      [fastGet, []],
      [fastGet, [id, 'extra']],
      [fastGet, [id, '--help']],
      [fastGet, [id, '-h']],
      [fastGet, [id, '--version']],
      [fastGet, [id, '-v']],
      [fastGet, [id, '--', '--json']],
      [fastGet, ['--', id]],
      [fastGet, [id, '--json=true']],
      [fastGet, [id, '--output', 'xml']],
      [fastGet, [id, '--output', 'JSON']],
      [fastGet, [id, '--output']],
      [fastGet, [id, '--timeout', 'soon']],
      [fastGet, [id, '--fields', 'nope']],
      [fastGet, [id, '--until', 'never']],
      [fastGet, [id, '--retries', '11']],
      [fastGet, [id, '--jsn']],
      [fastCreate, ['--batch', 'orders.csv']],
      [fastCreate, ['--batch', 'orders.csv', '--yes']],
      [fastCreate, ['--amount', '1', '--amount', '2']],
      [fastCreate, ['--amount', '1', '-y']],
      [fastCreate, ['--amount', '1', '--dry-run']],
      [fastCreate, ['--amount', '1', '--output', 'csv']],
      [fastCreate, ['stray']],
      [fastList, ['--all', '--concurrency', '17']],
      [fastList, ['--output', 'xml']],
      [fastList, ['--all', '--help']],
      [fastList, ['stray']],
    ]
    for (const [command, argv] of declined) expect(await read(command, argv), argv.join(' ')).toBeUndefined()
  })

  it('answers in JSON by oclif\'s rule, and for --fields', () => {
    const get = fastGet.definition
    expect(jsonRequested(get, [id, '--json'], {})).toBe(true)
    expect(jsonRequested(get, [id, '--', '--json'], {})).toBe(false)
    expect(jsonRequested(get, [id], {GATEWAY_CONTENT_TYPE: 'JSON'})).toBe(true)
    expect(jsonRequested(get, [id, '--fields=id'], {})).toBe(true)
    expect(jsonRequested({...get, enableJsonFlag: false, flags: {}}, [id, '--json'], {})).toBe(false)
  })
})
