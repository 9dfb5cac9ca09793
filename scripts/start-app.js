#!/usr/bin/env node
// Starts one of the apps, building it (the libs first) when its build is missing or older than its sources.
// Usage: node scripts/start-app.js <app> [app arguments...]. Build output goes to stderr, so stdio mode stays clean.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { buildApp } = require('./app-build');

const root = path.resolve(__dirname, '..');
const [app, ...args] = process.argv.slice(2);
if (!app || !fs.existsSync(path.join(root, 'apps', app))) {
  console.error(
    `usage: node scripts/start-app.js <app> [args...] (apps: ${fs.readdirSync(path.join(root, 'apps')).join(', ')})`,
  );
  process.exit(2);
}
const entry = path.join(root, 'dist', 'apps', app, 'apps', app, 'src', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    // A lib's dist/ is built output (its .d.ts files), not a source.
    if (item.isDirectory() && item.name === 'dist') continue;
    if (item.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (item.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const sources = Math.max(newestSource(path.join(root, 'apps', app, 'src')), newestSource(path.join(root, 'libs')));
if (!fs.existsSync(entry) || fs.statSync(entry).mtimeMs < sources) {
  console.error(`Building ${app}…`);
  const status = buildApp(app);
  if (status !== 0) process.exit(status);
}

const child = spawn(process.execPath, [entry, ...args], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
