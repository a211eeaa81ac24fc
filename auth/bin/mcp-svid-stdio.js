#!/usr/bin/env node
// Committed entry point: npm links bins at install time, before `prepare` has compiled dist/.
import '../dist/src/cli/mcp-svid-stdio.js';
