/**
 * Buffers for pages of deposits, used again once their answer has been handed to the system.
 *
 * A page of 100 deposits is some 110 KB. Made anew for every answer, each buffer is freed by V8's
 * collector and given back to the system by the C library (it trims the top of its heap), and the
 * next one is written into new pages of memory, each a page fault: under load, Node 24 spent more
 * time there than in making the page (the sandbox answered 1,700 pages a second, against 4,000
 * with the C library told not to trim). Kept here, a buffer is written again into the same memory.
 */
import {Buffer} from 'node:buffer'

/** How many free buffers are kept (those of answers being written are not counted). */
const KEPT = 32
/** Sizes are rounded up to this, so that one buffer serves pages of about the same size. */
const STEP = 16 * 1024

export class PageBuffers {
  private readonly free: Buffer[] = []
  /** The memory of every buffer `take` made: nothing else is ever kept (a view of Node's shared pool would be written under its other users). */
  private readonly made = new WeakSet<ArrayBufferLike>()

  /** A buffer of at least `size` bytes: a free one that fits, else a new one. */
  readonly take = (size: number): Buffer => {
    const index = this.free.findIndex((buffer) => buffer.length >= size && buffer.length < 2 * size + STEP)
    if (index !== -1) return this.free.splice(index, 1)[0]
    const buffer = Buffer.allocUnsafeSlow(Math.ceil(size / STEP) * STEP)
    this.made.add(buffer.buffer)
    return buffer
  }

  /** Takes back a buffer `take` gave (or a view of it), once nothing will read it again. */
  give(view: Buffer): void {
    if (this.free.length >= KEPT || !this.made.has(view.buffer)) return
    if (this.free.some((buffer) => buffer.buffer === view.buffer)) return
    this.free.push(Buffer.from(view.buffer, 0, view.buffer.byteLength))
  }

  /** How many free buffers are kept: for the tests. */
  get size(): number {
    return this.free.length
  }
}
