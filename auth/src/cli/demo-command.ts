import type { Command } from '@notegate/kit/cli';
import { processIo } from '@notegate/kit/cli';
import { runDemo, SCENARIOS } from '../demo/run-demo.js';
import { reportWidth, terminalStyle, wantsColour } from '../demo/style.js';

const options = {
  'keep-running': {
    type: 'boolean',
    description:
      'After the scenarios, leave the deployment up and print notegate agent lines (real ports and sockets) ' +
      'to call it by hand; Ctrl-C or SIGTERM stops it.',
  },
  verbose: {
    type: 'boolean',
    description:
      'Also print each agent command line with its full stdout and stderr, and every audit line in full ' +
      '(the raw JSON line with all its fields) instead of the compact form.',
  },
  'no-color': {
    type: 'boolean',
    description: 'No colours. Without it, colours are used only when stdout is a terminal and NO_COLOR is unset.',
  },
} as const;

export function demoCommand(): Command<typeof options> {
  return {
    name: 'notegate demo',
    usage: 'notegate demo [--keep-running] [--verbose] [--no-color]',
    summary:
      'The four scenarios, end to end: starts the development identity provider, authz and notes servers as\n' +
      'child processes on loopback (free ports, a private temporary folder), runs notegate agent through\n' +
      `${SCENARIOS.map((scenario, index) => `(${index + 1}) ${scenario.title.toLowerCase()}`).join(', ')},\n` +
      'and prints for each what was expected, what happened, PASS or FAIL, and the audit lines the decisions\n' +
      'produced. Everything is stopped and removed at the end, on Ctrl-C, SIGTERM or a failure.\n\n' +
      'Exit codes:\n  0  every scenario behaved as expected\n  1  a scenario did not, or the deployment did not start\n' +
      '  2  bad option\n  130, 143  interrupted by SIGINT, SIGTERM',
    options,
    async run({ options: values }) {
      const stop = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const isTty = process.stdout.isTTY === true;
        const colour = wantsColour({ isTty, noColorFlag: values['no-color'], noColorEnv: process.env.NO_COLOR });
        const layout = {
          style: terminalStyle(colour),
          width: reportWidth(isTty ? process.stdout.columns : undefined),
          verbose: values.verbose,
        };
        return await runDemo({ keepRunning: values['keep-running'], layout }, processIo, stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
  };
}
