#!/usr/bin/env node
// Committed entry point: npm links bins at install time, before `prepare` has compiled dist/.
// The Node.js version is checked before the program's modules are even linked.
import { requireNodeFloor } from '@notegate/kit/node-floor';

requireNodeFloor('notegate-rag');
await import('../dist/src/cli/main.js');
