// The software bill of materials of what the project ships: dist/sbom.cdx.json, CycloneDX 1.6 JSON,
// written by the build (scripts/build.mjs) from esbuild's own account of every bundle it wrote (the
// metafiles): each npm package a bundle carries a file of, at the version and with the integrity
// package-lock.json locked it at, and the bundles that carry it. A package that is installed but
// carried by no bundle (the build and test tools) is not listed. Then the Node runtime the single
// executable and the .deb embed (scripts/runtime.mjs), and how that binary is fetched.
//
// Audit it with any CycloneDX-aware scanner (see docs/development.md), or hold the listed
// versions to npm's advisories with `npm audit` against the lockfile.
import {createHash, randomUUID} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join, relative, resolve, sep} from 'node:path'

/** The package folder (node_modules/…/name, as package-lock.json keys it) of an input path, if any. */
export function packageFolder(input) {
  const parts = input.split(/[\\/]/)
  const last = parts.lastIndexOf('node_modules')
  if (last === -1) return undefined
  const name = parts[last + 1]?.startsWith('@') ? parts.slice(last + 1, last + 3) : parts.slice(last + 1, last + 2)
  return [...parts.slice(0, last + 1), ...name].join('/')
}

/** pkg:npm purl of a package name and version. */
export const npmPurl = (name, version) => `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}@${version}`

/** A lockfile integrity (sha512-BASE64) as CycloneDX's hash (hex). */
function hashOf(integrity) {
  const [algorithm, base64] = String(integrity ?? '').split('-')
  const alg = {sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256', sha1: 'SHA-1'}[algorithm]
  return alg && base64 ? [{alg, content: Buffer.from(base64, 'base64').toString('hex')}] : []
}

const licensesOf = (license) => {
  if (!license) return undefined
  return /\s(OR|AND|WITH)\s|[()]/.test(license) ? [{expression: license}] : [{license: {id: license}}]
}

/**
 * The bill of materials, from the metafiles of every build (root: the checkout; patched: the
 * package folders whose files the build patches, with how many patches), and the pinned Node.
 */
export function sbom({root, metafiles, patched = new Map(), runtime, esbuildVersion, cwd = process.cwd()}) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  /** Package folder → the bundles (output file names) that carry a file of it, and how many files. */
  const carried = new Map()
  for (const metafile of metafiles) {
    for (const [output, {inputs}] of Object.entries(metafile.outputs)) {
      // esbuild names inputs and outputs relative to the folder it ran in.
      const bundle = relative(join(root, 'dist'), resolve(cwd, output)).split(sep).join('/')
      for (const input of Object.keys(inputs)) {
        // Inputs of a namespace of the build's own (stand-ins, the slim entry) are no package's files.
        if (/^[a-z-]+:/.test(input)) continue
        const folder = packageFolder(relative(root, resolve(cwd, input)).split(sep).join('/'))
        if (!folder) continue
        const entry = carried.get(folder) ?? {bundles: new Set(), files: new Set()}
        entry.bundles.add(bundle)
        entry.files.add(input)
        carried.set(folder, entry)
      }
    }
  }
  /** One component per package and version (purl): npm may install the same one in several folders. */
  const byPurl = new Map()
  for (const [folder, {bundles, files}] of [...carried].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const locked = lock.packages[folder]
    if (!locked) throw new Error(`${folder} is bundled but not in package-lock.json: run npm install`)
    const {name: installedName} = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'))
    const name = locked.name ?? installedName
    if (locked.version === undefined) throw new Error(`${folder} has no locked version in package-lock.json`)
    const purl = npmPurl(name, locked.version)
    const known = byPurl.get(purl)
    if (known) {
      for (const bundle of bundles) known.bundles.add(bundle)
      known.files += files.size
      known.folders.push(folder)
      continue
    }
    byPurl.set(purl, {bundles: new Set(bundles), files: files.size, folders: [folder], locked, name})
  }
  const components = []
  for (const [purl, {bundles, files, folders, locked, name}] of [...byPurl].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [group, bare] = name.startsWith('@') ? name.split('/') : [undefined, name]
    const component = {
      type: 'library',
      'bom-ref': purl,
      ...(group ? {group} : {}),
      name: bare,
      version: locked.version,
      purl,
      hashes: hashOf(locked.integrity),
      ...(licensesOf(locked.license) ? {licenses: licensesOf(locked.license)} : {}),
      properties: [
        {name: 'gateway:bundles', value: [...bundles].sort().join(' ')},
        {name: 'gateway:files', value: String(files)},
        // Where package-lock.json locks it (each folder npm installed this version in, space-separated).
        {name: 'gateway:lockfile-path', value: folders.join(' ')},
      ],
    }
    const patches = folders.reduce((sum, folder) => sum + (patched.get(folder) ?? 0), 0)
    if (patches > 0) Object.assign(component, {pedigree: {notes: `${patches} text patch(es) applied at build time: PATCHES in scripts/build.mjs`}})
    components.push(component)
  }
  const runtimeRef = `pkg:npm/${runtime.package}@${runtime.version}`
  components.push({
    type: 'platform',
    'bom-ref': runtimeRef,
    name: 'node',
    version: runtime.version,
    description: 'The Node.js runtime embedded in the single executable (dist/package/gateway) and the .deb',
    purl: runtimeRef,
    hashes: [...hashOf(runtime.integrity), {alg: 'SHA-256', content: runtime.sha256}],
    licenses: [{license: {id: 'MIT'}}],
    properties: [
      {name: 'gateway:fetched-by', value: `the npm package node@${runtime.version} (package.json devDependencies, preinstall approved in allowScripts), whose preinstall script installs ${runtime.package}@${runtime.version} from the npm registry`},
      {name: 'gateway:integrity-checked', value: runtime.checked ? 'yes: against scripts/runtime.mjs KNOWN_RUNTIMES' : 'no: this platform package has no integrity recorded in scripts/runtime.mjs'},
      {name: 'gateway:sha256-of', value: 'the node binary, before the CLI was injected into it'},
    ],
  })
  const self = npmPurl(pjson.name, pjson.version)
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: new Date().toISOString(),
      tools: {components: [{type: 'application', name: 'esbuild', version: esbuildVersion}]},
      component: {type: 'application', 'bom-ref': self, name: pjson.name, version: pjson.version, purl: self, description: pjson.description},
    },
    components,
    dependencies: [{ref: self, dependsOn: components.map((component) => component['bom-ref'])}],
  }
}

/** Writes the bill of materials to `out`; answers its components' count. */
export function writeSbom(out, options) {
  const bom = sbom(options)
  writeFileSync(out, `${JSON.stringify(bom, null, 2)}\n`)
  return {components: bom.components.length, digest: createHash('sha256').update(JSON.stringify(bom.components)).digest('hex').slice(0, 12)}
}
