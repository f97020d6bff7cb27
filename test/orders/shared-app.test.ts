/**
 * The orders modules that need only the plain app, in one worker process around one shared app
 * (`sharedTestApp` in test/helpers/app.ts says why and what a module must respect).
 */
import test from 'ava';
import { stopSharedTestApp } from '../helpers/app.js';
import './file-names.cases.js';
import './patient-audit.cases.js';
import './submit-503a.cases.js';
import './shipment-progress.cases.js';
import './concurrency.cases.js';
import './submit-atomic.cases.js';
import './model.cases.js';

test.after.always(stopSharedTestApp);
