// undici's HTTP parser as WebAssembly bytes (a module of undici's own, which has no types).
declare module 'undici/lib/llhttp/llhttp_simd-wasm.js' {
  import type {Buffer} from 'node:buffer'

  const bytes: Buffer
  export default bytes
}
