#!/usr/bin/env node
// A committed entry point: npm links a workspace's bins at install time, before `prepare`
// compiles dist/, and skips bins whose file does not exist yet.
import '../dist/src/cli/main.js';
