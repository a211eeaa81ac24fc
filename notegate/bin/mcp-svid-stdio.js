#!/usr/bin/env node
// The package users install names the commands; each program lives in its own package (docs/install.md#packages).
import '@notegate/auth/bin/mcp-svid-stdio.js';
