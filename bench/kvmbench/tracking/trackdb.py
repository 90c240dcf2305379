# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.trackdb: bench/track's database of runs.

One row a measured run (runs: kernel, arch, command, run index, the
boot it ran in, the kernel release the guest reported, when, the test's
JSON), one row a figure of it (figures: every RESULT figure and KVM stat
per page, as kvmbench.verdicts.results.run_figures reads them), one row a run
that failed (failures: never judged, kept for the report).  The key
(kernel, arch, command, run_idx) is unique: a run is stored once, and
each is committed as it ends, so a killed track loses nothing measured
and the same command again continues with the runs still missing.

SQLite in a file (the default; stdlib sqlite3), or PostgreSQL given a
postgresql:// URL (Debian's python3-psycopg2).  A database is ours when
its table track_meta says schema = SCHEMA; one with other tables and no
such row is not ours, and is refused before anything is written.  One
track at a time writes a database: an advisory lock (SQLite: flock on
the file; PostgreSQL: pg_try_advisory_lock) held while it runs."""

import datetime
import fcntl
import json
import os
import re
import sqlite3
import threading

from kvmbench.base.errors import UsageError

SCHEMA = 'kvm-selftests-track 1'
PG_LOCK_KEY = 0x6b766d74    # 'kvmt': the advisory lock of a track

TABLES = [
    "CREATE TABLE IF NOT EXISTS track_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs (id {serial}, kernel TEXT NOT NULL, "
    "arch TEXT NOT NULL, command TEXT NOT NULL, run_idx INTEGER NOT NULL, "
    "boot INTEGER NOT NULL, release TEXT NOT NULL, at TEXT NOT NULL, "
    "json TEXT NOT NULL, UNIQUE (kernel, arch, command, run_idx))",
    "CREATE TABLE IF NOT EXISTS figures (run_id INTEGER NOT NULL REFERENCES runs (id), "
    "name TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, unit TEXT NOT NULL, "
    "PRIMARY KEY (run_id, name))",
    "CREATE TABLE IF NOT EXISTS commands (arch TEXT NOT NULL, name TEXT NOT NULL, "
    "line TEXT NOT NULL, PRIMARY KEY (arch, name))",
    "CREATE TABLE IF NOT EXISTS failures (id {serial}, kernel TEXT NOT NULL, "
    "arch TEXT NOT NULL, command TEXT NOT NULL, run_idx INTEGER NOT NULL, "
    "rc INTEGER NOT NULL, at TEXT NOT NULL, output TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS lava_jobs (lab TEXT NOT NULL, job INTEGER NOT NULL, "
    "kernel TEXT NOT NULL, arch TEXT NOT NULL, runs TEXT NOT NULL, state TEXT NOT NULL, "
    "at TEXT NOT NULL, PRIMARY KEY (lab, job))",
]


def is_url(spec):
    return spec.startswith(('postgresql://', 'postgres://'))


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')


class DB:
    """An open track database (open() checks it; create() makes it ours)."""

    def __init__(self, spec):
        self.pg = is_url(spec)
        # as shown in messages: a URL's password masked
        self.spec = re.sub(r'(://[^:/@]*):[^@/]*@', r'\1:***@', spec) if self.pg else spec
        self.url = spec
        self.conn = None
        self.lock_fd = None
        self.lock = threading.Lock()

    # ---- opening, checking, locking ----------------------------------

    def open(self, write, empty_ok=False):
        """Connect and check that the database is ours, or new and empty
        (only with @write: it is made ours then).  UsageError (one line,
        exit 2) when it is not ours, locked by another track, or cannot
        be reached; nothing is written before these checks pass."""
        if self.pg:
            self._open_pg()
        else:
            self._open_sqlite(write)
        tables = self._tables()
        if tables:
            if 'track_meta' not in tables:
                raise UsageError("database %s is not a track database (it has tables %s and "
                                 "no track_meta)" % (self.spec, ', '.join(sorted(tables)[:4])))
            row = self.q("SELECT value FROM track_meta WHERE key = 'schema'")
            if not row or row[0][0] != SCHEMA:
                raise UsageError("database %s is not a track database of this version "
                                 "(schema %s, want %s)" % (self.spec, row[0][0] if row else
                                                           'none', SCHEMA))
        elif not write and not empty_ok:
            raise UsageError('database %s holds no track (no runs stored)' % self.spec)
        if write:
            self._lock()
            self._create(new=not tables)
        return self

    def check(self):
        """open(write=True)'s checks, nothing written nor locked (--dry-run,
        and before a build): a new database, or one of ours."""
        if not self.pg and not os.path.exists(self.spec):
            d = os.path.dirname(os.path.abspath(self.spec))
            if not os.path.isdir(d):
                raise UsageError("database '%s': no directory %s" % (self.spec, d))
            return
        try:
            self.open(write=False, empty_ok=True)
        finally:
            self.close()

    def _open_sqlite(self, write):
        path = self.spec
        if not os.path.exists(path):
            if not write:
                raise UsageError("no database '%s'" % path)
            d = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(d):
                raise UsageError("database '%s': no directory %s" % (path, d))
            self.conn = sqlite3.connect(path, timeout=0, isolation_level=None,
                                        check_same_thread=False)
            return
        if not os.path.isfile(path):
            raise UsageError("database '%s' is not a file" % path)
        with open(path, 'rb') as f:
            head = f.read(16)
        if head and head != b'SQLite format 3\x00':
            raise UsageError("database '%s' is not an SQLite database (nothing written)" % path)
        try:
            self.conn = sqlite3.connect(path, timeout=0, isolation_level=None,
                                        check_same_thread=False)
            self.conn.execute('SELECT count(*) FROM sqlite_master').fetchall()
        except sqlite3.Error as e:
            raise UsageError("database '%s': %s" % (path, e))

    def _open_pg(self):
        from kvmbench.vmrun.runner import debian_module
        psycopg2 = debian_module('psycopg2')
        if psycopg2 is None:
            raise UsageError('a PostgreSQL URL needs python3-psycopg2 (apt-get install '
                             'python3-psycopg2)')
        try:
            self.conn = psycopg2.connect(self.url, connect_timeout=10)
        except psycopg2.Error as e:
            raise UsageError('database %s: %s' % (self.spec, str(e).strip().splitlines()[0]))
        self.conn.autocommit = True

    def _lock(self):
        if self.pg:
            if not self.q('SELECT pg_try_advisory_lock(%d)' % PG_LOCK_KEY)[0][0]:
                raise UsageError('database %s is locked: another track writes it' % self.spec)
            return
        path = self.spec
        self.lock_fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.conn.execute('BEGIN IMMEDIATE')
            self.conn.execute('ROLLBACK')
        except (OSError, sqlite3.OperationalError):
            raise UsageError('database %s is locked: another program writes it' % path)

    def _tables(self):
        if self.pg:
            rows = self.q("SELECT table_name FROM information_schema.tables "
                          "WHERE table_schema = current_schema()")
        else:
            try:
                rows = self.q("SELECT name FROM sqlite_master WHERE type = 'table'")
            except sqlite3.Error as e:
                raise UsageError("database '%s': %s" % (self.spec, e))
        return {r[0] for r in rows}

    def _create(self, new):
        """The tables (those missing: CREATE TABLE IF NOT EXISTS), and in a
        @new database the row that makes it ours."""
        serial = 'SERIAL PRIMARY KEY' if self.pg else 'INTEGER PRIMARY KEY AUTOINCREMENT'
        with self.transaction():
            for t in TABLES:
                self.x(t.format(serial=serial))
            if new:
                self.x('INSERT INTO track_meta (key, value) VALUES (?, ?)', ('schema', SCHEMA))

    def close(self):
        if self.conn:
            self.conn.close()
        if self.lock_fd is not None:
            os.close(self.lock_fd)

    # ---- statements ------------------------------------------------------

    def _sql(self, sql):
        return sql.replace('?', '%s') if self.pg else sql

    def q(self, sql, args=()):
        cur = self.conn.cursor()
        cur.execute(self._sql(sql), args)
        rows = cur.fetchall()
        cur.close()
        return rows

    def x(self, sql, args=()):
        cur = self.conn.cursor()
        cur.execute(self._sql(sql), args)
        cur.close()

    def transaction(self):
        """One transaction, one thread at a time (bench/track --jobs)."""
        db = self

        class T:
            def __enter__(self):
                db.lock.acquire()
                db.x('BEGIN')

            def __exit__(self, kind, *_):
                try:
                    db.x('COMMIT' if kind is None else 'ROLLBACK')
                finally:
                    db.lock.release()
        return T()

    # ---- runs ------------------------------------------------------------

    def done(self, arch):
        """{(kernel, command, run_idx)} of the runs stored for @arch."""
        return {tuple(r) for r in self.q(
            'SELECT kernel, command, run_idx FROM runs WHERE arch = ?', (arch,))}

    def store(self, kernel, arch, command, run_idx, boot, release, json_text, figures):
        """One measured run and its figures {name: (value, unit)}, in one
        transaction; False (nothing stored) if that run is stored already."""
        with self.transaction():
            if self.q('SELECT 1 FROM runs WHERE kernel = ? AND arch = ? AND command = ? '
                      'AND run_idx = ?', (kernel, arch, command, run_idx)):
                return False
            args = (kernel, arch, command, run_idx, boot, release, now(), json_text)
            ins = ('INSERT INTO runs (kernel, arch, command, run_idx, boot, release, at, json) '
                   'VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
            if self.pg:
                run_id = self.q(ins + ' RETURNING id', args)[0][0]
            else:
                cur = self.conn.cursor()
                cur.execute(ins, args)
                run_id = cur.lastrowid
                cur.close()
            for name, (value, unit) in sorted(figures.items()):
                self.x('INSERT INTO figures (run_id, name, value, unit) VALUES (?, ?, ?, ?)',
                       (run_id, name, value, unit))
        return True

    def command_line(self, arch, name, line):
        """Record that command @name runs @line on @arch; UsageError (before
        any run) if the database has it with another line: runs of two
        command lines are never judged as one."""
        with self.transaction():
            got = self.q('SELECT line FROM commands WHERE arch = ? AND name = ?', (arch, name))
            if not got:
                self.x('INSERT INTO commands (arch, name, line) VALUES (?, ?, ?)',
                       (arch, name, line))
        if got and got[0][0] != line:
            raise UsageError("database %s has command %s on %s as '%s', not '%s': name it "
                             "otherwise (--command) or give another --db" % (
                                 self.spec, name, arch, got[0][0], line))

    def failed(self, kernel, arch, command, run_idx, rc, output):
        with self.transaction():
            self.x('INSERT INTO failures (kernel, arch, command, run_idx, rc, at, output) '
                   'VALUES (?, ?, ?, ?, ?, ?, ?)',
                   (kernel, arch, command, run_idx, rc, now(), output))

    # ---- LAVA jobs (bench/track --lava) ------------------------------------

    def lava_submitted(self, lab, job, kernel, arch, commands, run_idx):
        """Job @job of the lab at @lab runs @commands' runs @run_idx on
        @kernel: recorded as submitted, so that a track killed before
        its results were stored takes them from the job."""
        runs = json.dumps({'commands': list(commands), 'runs': list(run_idx)})
        with self.transaction():
            self.x('INSERT INTO lava_jobs (lab, job, kernel, arch, runs, state, at) '
                   "VALUES (?, ?, ?, ?, ?, 'submitted', ?)", (lab, job, kernel, arch, runs, now()))

    def lava_pending(self, lab):
        """[(job, kernel, arch, [command], [run_idx])] of the lab's jobs
        submitted and not yet collected, oldest first."""
        out = []
        for job, kernel, arch, runs in self.q(
                "SELECT job, kernel, arch, runs FROM lava_jobs WHERE lab = ? AND "
                "state = 'submitted' ORDER BY job", (lab,)):
            r = json.loads(runs)
            out.append((job, kernel, arch, r['commands'], r['runs']))
        return out

    def lava_done(self, lab, job, state):
        """Job @job's results are stored (@state collected), or it is
        gone from the lab (lost)."""
        with self.transaction():
            self.x('UPDATE lava_jobs SET state = ?, at = ? WHERE lab = ? AND job = ?',
                   (state, now(), lab, job))

    def next_boot(self):
        r = self.q('SELECT max(boot) FROM runs')
        return (r[0][0] or 0) + 1

    def values(self, arch=None):
        """{(arch, command): {kernel: {figure: [values by run_idx]}}} and
        {figure: unit}."""
        sql = ('SELECT r.arch, r.command, r.kernel, r.run_idx, f.name, f.value, f.unit '
               'FROM runs r JOIN figures f ON f.run_id = r.id')
        args = ()
        if arch:
            sql += ' WHERE r.arch = ?'
            args = (arch,)
        out, units = {}, {}
        for a, c, k, _, name, v, unit in sorted(self.q(sql, args)):
            out.setdefault((a, c), {}).setdefault(k, {}).setdefault(name, []).append(v)
            units[name] = unit
        return out, units

    def boot_values(self):
        """{(arch, command): {kernel: {figure: {boot: [values]}}}}: each
        run's figures by the boot it ran in."""
        sql = ('SELECT r.arch, r.command, r.kernel, r.boot, r.run_idx, f.name, f.value '
               'FROM runs r JOIN figures f ON f.run_id = r.id')
        out = {}
        for a, c, k, boot, _, name, v in sorted(self.q(sql)):
            out.setdefault((a, c), {}).setdefault(k, {}).setdefault(name, {}).setdefault(
                boot, []).append(v)
        return out

    def count(self, table):
        return self.q('SELECT count(*) FROM %s' % table)[0][0]
