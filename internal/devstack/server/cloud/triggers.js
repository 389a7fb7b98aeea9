'use strict';
// Triggers that record what cloud code sees of a save, for the SDK's trigger tests (issue 30): whether a create
// arrives as a create. beforeSave and afterSave on TriggerProbe write one TriggerLog row per call (master key) with request.object.isNew(), existed(), whether
// request.original is set and request.object.id. Only saves that carry a string triggerRun are recorded, so the
// other tests' users cost nothing. Two instances run behind the balancer: a class, not memory, holds the log.

async function record(phase, req) {
  const run = req.object.get('triggerRun');
  if (typeof run !== 'string' || run === '') {
    return;
  }
  const row = new Parse.Object('TriggerLog');
  row.set({
    run,
    phase,
    cls: req.object.className,
    label: String(req.object.get('label') || ''),
    isNew: req.object.isNew(),
    existed: req.object.existed(),
    hasOriginal: req.original !== undefined && req.original !== null,
    seenId: req.object.id || '',
  });
  await row.save(null, { useMasterKey: true });
}

// Not on _User: a beforeSave on a class makes parse-server 9.10 answer an AddUnique with only the op's items
// instead of the resulting array (README, "Cloud code triggers"), which the other tests' link flows would see.
for (const cls of ['TriggerProbe']) {
  Parse.Cloud.beforeSave(cls, req => record('beforeSave', req));
  Parse.Cloud.afterSave(cls, req => record('afterSave', req));
}
