/**
 * Cuts a byte stream into lines (LF, with an optional CR before it), holding at most `maxLineBytes`
 * of an unfinished line: a longer line is reported once and skipped up to its end, so a client that
 * never sends a newline cannot make the proxy buffer without bound.
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: string) => void;
  readonly #onOversize: () => void;
  #parts: Buffer[] = [];
  #bytes = 0;
  #skipping = false;

  constructor(maxLineBytes: number, onLine: (line: string) => void, onOversize: () => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
    this.#onOversize = onOversize;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end !== -1; end = chunk.indexOf(0x0a, start)) {
      this.#take(chunk.subarray(start, end));
      this.#finishLine();
      start = end + 1;
    }
    this.#take(chunk.subarray(start));
  }

  /** The input ended: a last line without a newline still counts. */
  end(): void {
    if (this.#bytes > 0) this.#finishLine();
  }

  #take(piece: Buffer): void {
    if (this.#skipping || piece.length === 0) return;
    if (this.#bytes + piece.length > this.#maxLineBytes) {
      this.#parts = [];
      this.#bytes = 0;
      this.#skipping = true;
      this.#onOversize();
      return;
    }
    this.#parts.push(piece);
    this.#bytes += piece.length;
  }

  #finishLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const line = Buffer.concat(this.#parts, this.#bytes).toString('utf8');
    this.#parts = [];
    this.#bytes = 0;
    this.#onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}
