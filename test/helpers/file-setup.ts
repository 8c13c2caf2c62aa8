// Runs before each test file (vitest's setupFiles), so its hook belongs to that file: the file's
// database is dropped once the file's tests and hooks are done. A hook registered while a file
// runs (from a beforeAll) would not be attached to the file.
import { afterAll } from 'vitest';
import { dropFileDatabase } from './app.js';

afterAll(dropFileDatabase);
