'use strict';
// recordCall stores one row per run in the class its caller names: the fault tests count rows to see whether a
// call retried through faults ran more than once.
Parse.Cloud.define('recordCall', async req => {
  const { className, key } = req.params;
  if (typeof className !== 'string' || !/^CallLog[A-Za-z0-9]{1,40}$/.test(className) || typeof key !== 'string') {
    throw new Parse.Error(Parse.Error.INVALID_JSON, 'recordCall needs className CallLog* and a string key');
  }
  const row = new Parse.Object(className);
  row.set('key', key);
  await row.save(null, { useMasterKey: true });
  return { id: row.id };
});
