/**
 * undici reads HTTP answers with llhttp compiled to WebAssembly, and compiles the module on the main
 * thread when its first connection opens (a few milliseconds of every short command).
 * prepareHttpParser() starts compiling the same bytes on V8's background threads instead, as soon
 * as a command knows it will send a request (a lookup on the fast path: as soon as its bundle is
 * evaluated, for an id it will send), while it reads its token and loads undici; the client waits
 * for it before its first request, by when it is mostly done. bin/run.js has V8 compile every function of it
 * then (--no-wasm-lazy-compilation), not each on the main thread when first called, mid-request.
 * V8 takes each step of the compile from the main thread between turns of the event loop, so a
 * command that starts the compile early lets the loop turn once soon after (src/fast/tx-get.ts).
 * The module is left under a global key, where undici, as the build patches it
 * (scripts/build.mjs), takes it when it opens a connection; without the patch (or when compiling
 * failed) undici compiles its own, as it always does.
 */
import type {Buffer} from 'node:buffer'

// The bytes only (no compiling): a file read in the fast path, a base64 text in the main bundle.
import bytes from 'undici/lib/llhttp/llhttp_simd-wasm.js'

const KEY = Symbol.for('gateway.llhttp')

interface Slot {
  module?: unknown
  ready: Promise<void>
}

interface Wasm {
  compile(bytes: Buffer): Promise<unknown>
}

/** Starts compiling the parser once per process; answers when it is compiled (or failed to be). */
export function prepareHttpParser(): Promise<void> {
  const holder = globalThis as {[KEY]?: Slot}
  if (!holder[KEY]) {
    // undici compiles this very module unless told not to use SIMD (or on ppc64, where it never does).
    const skip = process.env.UNDICI_NO_WASM_SIMD === '1' || process.arch === 'ppc64'
    const slot: Slot = {ready: Promise.resolve()}
    if (!skip) {
      // A compile in progress holds nothing of the event loop (Node 24): a command with nothing else
      // to wait for meanwhile (a login) would end, exit 0 and silent, before its request. A timer
      // holds the loop until the compile is done.
      const hold = setInterval(() => {}, 60_000)
      slot.ready = (globalThis as unknown as {WebAssembly: Wasm}).WebAssembly.compile(bytes)
        .then(
          (module) => {
            slot.module = module
          },
          () => {},
        )
        .finally(() => clearInterval(hold))
    }
    holder[KEY] = slot
  }
  return holder[KEY].ready
}
