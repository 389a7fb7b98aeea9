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

// beforeLogin, as an app would have one (issue 32: the endpoint's one-call sign-in must run it as parse-server's
// login does): a user whose loginRefused is true is refused with 119 (the endpoint answers what the login would), and
// a user carrying a string triggerRun gets one TriggerLog row per login with what the trigger saw (its id, the
// sign-in's installation id, whether the request was master, whether it had the client's address). Other users
// cost one field read.
Parse.Cloud.beforeLogin(async req => {
  const u = req.object;
  if (u.get('loginRefused') === true) {
    throw new Parse.Error(Parse.Error.OPERATION_FORBIDDEN, 'beforeLogin: this account is suspended');
  }
  const run = u.get('triggerRun');
  if (typeof run !== 'string' || run === '') {
    return;
  }
  const row = new Parse.Object('TriggerLog');
  row.set({
    run,
    phase: 'beforeLogin',
    cls: u.className,
    label: String(u.get('ethAddress') || u.get('solAddress') || ''),
    seenId: u.id || '',
    installationId: req.installationId || '',
    master: req.master === true,
    hasIp: typeof req.ip === 'string' && req.ip !== '',
  });
  await row.save(null, { useMasterKey: true });
});
