'use strict';
// A parse-server e-mail adapter that appends every mail as one JSON line to a file, so tests can read
// password-reset and verification links. Each line: {"at","kind","to","subject","text","link"?}.
const fs = require('fs');

class JsonLineMailAdapter {
  constructor(file) {
    if (!file) {
      throw new Error('JsonLineMailAdapter: a file path is required');
    }
    this.file = file;
  }

  write(entry) {
    const line = JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n';
    // appendFileSync writes the whole line in one call, so concurrent mails do not interleave.
    fs.appendFileSync(this.file, line);
    return Promise.resolve();
  }

  sendMail({ to, subject, text }) {
    return this.write({ kind: 'mail', to, subject, text });
  }

  sendPasswordResetEmail({ link, appName, user }) {
    const username = user.get('username');
    const text =
      `Hi,\n\nYou requested to reset your password for ${appName}` +
      (username ? ` (your username is '${username}')` : '') +
      `.\n\nClick here to reset it:\n${link}`;
    return this.write({
      kind: 'passwordReset',
      to: user.get('email') || username,
      subject: `Password Reset for ${appName}`,
      text,
      link,
    });
  }

  sendVerificationEmail({ link, appName, user }) {
    const text =
      `Hi,\n\nYou are being asked to confirm the e-mail address ${user.get('email')} with ${appName}` +
      `\n\nClick here to confirm it:\n${link}`;
    return this.write({
      kind: 'verifyEmail',
      to: user.get('email'),
      subject: `Please verify your e-mail for ${appName}`,
      text,
      link,
    });
  }
}

module.exports = { JsonLineMailAdapter };
