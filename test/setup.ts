import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/databases.js';

// Every test file leaves /tmp as it found it; scripts/run-tests.sh checks the whole run does.
afterAll(() => removeTempDirs());
