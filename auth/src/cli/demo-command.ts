import type { Command } from '@notegate/kit/cli';
import { parseChoice, processIo, UsageError } from '@notegate/kit/cli';
import { DEMO_IDENTITIES } from '../demo/identity.js';
import type { IdentityChoice } from '../demo/run-demo.js';
import { runDemo, SCENARIOS } from '../demo/run-demo.js';
import { spireLayoutTargets } from '../demo/spire-identity.js';
import { reportWidth, terminalStyle, wantsColour } from '../demo/style.js';
import { decideSpireLayout, SPIRE_LAYOUTS } from '../identity-provider/spire/layout.js';
import {
  DEFAULT_SPIRE_BIN_DIR,
  findSpireBinaries,
  SPIRE_BUILD_ADVICE,
  SPIRE_VERSION,
} from '../identity-provider/spire/spire-binaries.js';

/** Names a folder holding spire-server and spire-agent (default: .spire/bin of the repository). */
const SPIRE_BIN_ENV = 'NOTEGATE_SPIRE_BIN';

const options = {
  identity: {
    type: 'string',
    valueName: DEMO_IDENTITIES.join('|'),
    default: 'development',
    description:
      `Where the workloads get their SVIDs: the development identity provider, or SPIRE ${SPIRE_VERSION} ` +
      `(its binaries from ${SPIRE_BIN_ENV}, else .spire/bin; npm run spire:build makes them).`,
  },
  'spire-layout': {
    type: 'string',
    valueName: SPIRE_LAYOUTS.join('|'),
    default: 'auto',
    description:
      'With --identity spire: uid (root only) runs each workload as a user of its own under one agent; ' +
      'agent-per-workload gives each workload an agent and socket of its own; auto picks uid where it can work.',
  },
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
    usage: 'notegate demo [--identity development|spire] [--keep-running] [--verbose] [--no-color]',
    summary:
      'The four scenarios, end to end: starts an identity source (the development identity provider, or\n' +
      `SPIRE ${SPIRE_VERSION} with --identity spire), authz and notes servers as child processes on loopback\n` +
      '(free ports, a private temporary folder), runs notegate agent through\n' +
      `${SCENARIOS.map((scenario, index) => `(${index + 1}) ${scenario.title.toLowerCase()}`).join(', ')},\n` +
      'and prints for each what was expected, what happened, PASS or FAIL, and the audit lines the decisions\n' +
      'produced. Everything is stopped and removed at the end, on Ctrl-C, SIGTERM or a failure.\n\n' +
      'Exit codes:\n  0  every scenario behaved as expected\n  1  a scenario did not, or the deployment did not start\n' +
      '  2  bad option (or --identity spire without SPIRE binaries)\n  130, 143  interrupted by SIGINT, SIGTERM',
    options,
    async run({ options: values }) {
      const identity = await identityChoice(
        parseChoice('--identity', values.identity, DEMO_IDENTITIES),
        parseChoice('--spire-layout', values['spire-layout'], SPIRE_LAYOUTS),
        process.env[SPIRE_BIN_ENV] || DEFAULT_SPIRE_BIN_DIR,
      );
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
        return await runDemo({ keepRunning: values['keep-running'], layout, identity }, processIo, stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    },
  };
}

/** The identity source asked for, with SPIRE's binaries and layout settled before anything starts. */
async function identityChoice(
  name: (typeof DEMO_IDENTITIES)[number],
  requestedLayout: (typeof SPIRE_LAYOUTS)[number],
  spireBinDir: string,
): Promise<IdentityChoice> {
  const lookup = await findSpireBinaries(spireBinDir);
  if (name === 'development') return { name, spireFound: lookup.found ? lookup.binaries : undefined };
  if (!lookup.found) throw new UsageError(`--identity spire: ${lookup.reason}; ${SPIRE_BUILD_ADVICE}`);
  const { binaries } = lookup;
  const decision = await decideSpireLayout(requestedLayout, spireLayoutTargets(binaries));
  if (decision.layout === undefined) throw new UsageError(`--spire-layout ${requestedLayout}: ${decision.problem}`);
  return { name, binaries, layout: decision.layout, why: decision.why };
}
