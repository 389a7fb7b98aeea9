'use strict';
// Triggers for the atomic-batch tests (client/atomic_integration_test.go): a save or delete of an AtomicBatch
// object whose "reject" field is true is refused, so a SaveAll or DestroyAll with Atomic that holds one is rolled
// back whole (parse-server's /batch with "transaction": true, on PostgreSQL).
Parse.Cloud.beforeSave('AtomicBatch', req => {
  if (req.object.get('reject') === true) {
    throw new Parse.Error(Parse.Error.VALIDATION_ERROR, 'AtomicBatch: rejected by beforeSave');
  }
});

Parse.Cloud.beforeDelete('AtomicBatch', req => {
  if (req.object.get('reject') === true) {
    throw new Parse.Error(Parse.Error.VALIDATION_ERROR, 'AtomicBatch: rejected by beforeDelete');
  }
});
