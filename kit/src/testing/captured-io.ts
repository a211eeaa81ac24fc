import type { CommandIo } from '../cli/command.js';

/** A CommandIo that keeps what a command prints, for running commands in the test's own process. */
export function capturedIo(columns?: number) {
  const output = { stdout: '', stderr: '' };
  const io: CommandIo = {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
    ...(columns === undefined ? {} : { columns }),
  };
  return { io, output };
}
