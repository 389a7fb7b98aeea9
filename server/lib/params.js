'use strict';
// Checks of cloud function parameters shared by the endpoint's functions (cloud/authsession.js,
// cloud/authsignin.js): each error is a Parse.Error 107 (INVALID_JSON) naming the function.

// paramChecks returns the checks for the function named fn: invalid(message) makes its error, isoDate(s, what)
// returns s when it is an ISO 8601 date in UTC parse-server would store (else throws).
function paramChecks(fn) {
  const invalid = message => new Parse.Error(Parse.Error.INVALID_JSON, `${fn}: ${message}`);
  const isoDate = (s, what) => {
    if (typeof s !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/.test(s) || Number.isNaN(Date.parse(s))) {
      throw invalid(`${what} must be an ISO date in UTC`);
    }
    return s;
  };
  return { invalid, isoDate };
}

module.exports = { paramChecks };
