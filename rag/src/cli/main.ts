#!/usr/bin/env node
import { homedir } from 'node:os';
import { type Command, runSubcommand } from '@notegate/auth/cli';
import { loadEnvironment } from '../config/environment.js';
import { createIndexCommand } from './index-command.js';
import { createServeCommand } from './serve-command.js';

/** The one place that reads the process environment (`.env` in the working directory under it). */
const environment = () =>
  loadEnvironment({ cwd: process.cwd(), env: process.env, platform: process.platform, homeDir: homedir() });

/** Subcommands of `notegate-rag`; each module only parses flags and wires real implementations. */
const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['index', createIndexCommand({ environment })],
  ['serve', createServeCommand({ environment })],
]);

process.exitCode = await runSubcommand('notegate-rag', COMMANDS, process.argv.slice(2));
