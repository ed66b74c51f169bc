import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConsoleProgress, mavenArgs } from './gatling-run';

// Gatling 3.15's console, as a capacity run prints it (shortened rules).
const consoleOutput = `Simulation kiosk.loadtest.CapacityStepSimulation started...

========================================================================================================================
2026-11-22 02:45:38 GMT                                                                               4s elapsed
---- Requests -----------------------------------------------------------------------|---Total---|-----OK----|----KO----
> Global                                                                             |     1,080 |     1,078 |         2
> 20 req/s / ssr                                                                     |        60 |        60 |         0

---- 40 req/s ----------------------------------------------------------------------------------------------------------
[#######                                                                                                        ]     6%
          waiting:       120 / active:        12  / done:         0
---- 20 req/s ----------------------------------------------------------------------------------------------------------
[###############################################################################################################]   100%
          waiting:         0 / active:         0  / done:        60
========================================================================================================================

Parsing log file(s)...
Generating reports...

========================================================================================================================
---- Global Information -------------------------------------------------------------|---Total---|-----OK----|----KO----
> request count                                                                      |       200 |       200 |         -
========================================================================================================================

Reports generated, please open the following file: file:///work/loadtest/target/gatling/capacitystepsimulation-20261122024532443/index.html
java.lang.IllegalArgumentException: -Drps must be a positive number, got "x"
	at kiosk.loadtest.Settings.positive(Settings.java:24)
[ERROR] Failed to execute goal io.gatling:gatling-maven-plugin:4.21.12:test (default-cli) on project kiosk-loadtest: Gatling failed.
[ERROR] 
[ERROR] Re-run Maven using the -X switch to enable full debug logging.`;

test("Gatling's console becomes one line per block; the report's folder is read; stack frames and Maven's advice are left out", () => {
  const lines: string[] = [];
  const progress = new ConsoleProgress((line) => lines.push(line));
  for (const line of consoleOutput.split('\n')) progress.line(line);
  assert.deepEqual(lines, [
    'CapacityStepSimulation started',
    '4 s: 1,080 requests, 2 KO, 12 users active (40 req/s)',
    'Generating reports...',
    'java.lang.IllegalArgumentException: -Drps must be a positive number, got "x"',
    '[ERROR] Failed to execute goal io.gatling:gatling-maven-plugin:4.21.12:test (default-cli) on project kiosk-loadtest: Gatling failed.',
  ]);
  assert.equal(progress.reportDir, '/work/loadtest/target/gatling/capacitystepsimulation-20261122024532443');
});

test('verbose passes every line and still finds the report', () => {
  const lines: string[] = [];
  const progress = new ConsoleProgress((line) => lines.push(line), true);
  for (const line of consoleOutput.split('\n')) progress.line(line);
  assert.equal(lines.length, consoleOutput.split('\n').length);
  assert.match(progress.reportDir ?? '', /capacitystepsimulation-/);
});

test('Maven runs quietly with the simulation and each property as -D', () => {
  assert.deepEqual(mavenArgs({ simulationClass: 'kiosk.loadtest.StressSimulation', description: 'a run', properties: { rps: '5', baseUrl: 'http://127.0.0.1:1' } }), [
    '--batch-mode',
    '--no-transfer-progress',
    '--quiet',
    'gatling:test',
    '-Dgatling.simulationClass=kiosk.loadtest.StressSimulation',
    '-Dgatling.runDescription=a run',
    '-Drps=5',
    '-DbaseUrl=http://127.0.0.1:1',
  ]);
});
