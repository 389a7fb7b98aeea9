'use strict';
// Triggers for the atomic-batch tests (client/atomic_integration_test.go): a save of an AtomicBatch object whose
// "reject" field is true, and a delete of one whose "keep" field is true, are refused, so a SaveAll or DestroyAll
// with Atomic that holds one is rolled back whole (parse-server's /batch with "transaction": true, on PostgreSQL).
Parse.Cloud.beforeSave('AtomicBatch', req => {
  if (req.object.get('reject') === true) {
    throw new Parse.Error(Parse.Error.VALIDATION_ERROR, 'AtomicBatch: rejected by beforeSave');
  }
});

Parse.Cloud.beforeDelete('AtomicBatch', req => {
  if (req.object.get('keep') === true) {
    throw new Parse.Error(Parse.Error.VALIDATION_ERROR, 'AtomicBatch: rejected by beforeDelete');
  }
});
