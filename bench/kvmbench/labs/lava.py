# SPDX-License-Identifier: GPL-2.0-only
"""A LAVA server's REST API (v0.2) with urllib: submit jobs, wait for
them, read their results and logs.  `local` names the lab of lava/lab."""

import json
import os
import socket
import time
import urllib.error
import urllib.request

LAB_STATE = os.environ.get('LAVA_LAB_DIR', '/var/lib/kvm-selftests-lava')
FINAL_HEALTH = ('Complete', 'Incomplete', 'Canceled')
# The device healths LAVA's scheduler can give test jobs to (Unknown and
# Looping after a health check, where the type has one); Bad and
# Maintenance devices take none.
RUNNABLE = ('Good', 'Unknown', 'Looping')


def device_types(devices):
    """{name: number of @devices} (Lava.devices()'s)."""
    out = {}
    for d in devices:
        out[d['device_type']] = out.get(d['device_type'], 0) + 1
    return out


def unable(devices, device_type):
    """None when one of @devices (Lava.devices()'s) of @device_type can
    take a job, else those devices in words ("q1 Bad, q3 Maintenance" or
    "none")."""
    devs = [d for d in devices if d['device_type'] == device_type]
    if any(d.get('health') in RUNNABLE for d in devs):
        return None
    return ', '.join('%s %s' % (d['hostname'], d.get('health')) for d in devs) or 'none'


class LavaError(Exception):
    """A failed request; kind: unreachable, token, notfound, http."""

    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


def local_lab():
    """(url, token) of the lab lava/lab started on this machine, or None."""
    try:
        with open(os.path.join(LAB_STATE, 'url')) as f:
            url = f.read().strip()
        with open(os.path.join(LAB_STATE, 'token')) as f:
            tok = f.read().strip()
    except OSError:
        return None
    return url.rstrip('/') + '/', tok


def resolve(spec, token=None):
    """(url, token) of --lava SPEC: a URL (token from @token or
    $LAVA_TOKEN, or the local lab's when the URL is its), or `local`,
    the lab lava/lab started."""
    lab = local_lab()
    if spec == 'local':
        if not lab:
            raise LavaError('unreachable', 'no local lab: start it with lava/lab start')
        return lab[0], token or lab[1]
    if not spec.startswith(('http://', 'https://')):
        raise LavaError('usage', "bad --lava '%s' (a URL http://HOST[:PORT]/ or local)" % spec)
    url = spec.rstrip('/') + '/'
    token = token or os.environ.get('LAVA_TOKEN', '')
    if not token and lab and lab[0] == url:
        token = lab[1]          # the URL lava/lab start printed: our lab
    return url, token


class Lava:
    def __init__(self, url, token=None, timeout=60):
        self.url = url.rstrip('/') + '/'
        self.api = self.url + 'api/v0.2/'
        self.token = token
        self.timeout = timeout

    def request(self, rel, data=None, raw=False):
        url = rel if rel.startswith('http') else self.api + rel
        headers = {'Accept': 'application/json'}
        if self.token:
            headers['Authorization'] = 'Token %s' % self.token
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers['Content-Type'] = 'application/json'
        req = urllib.request.Request(url, data=body, headers=headers)
        for attempt in range(3):
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    out = r.read()
                break
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors='replace')[:300]
                if e.code in (401, 403):
                    raise LavaError('token', 'LAVA at %s refused the token (HTTP %d: %s)'
                                    % (self.url, e.code, text.strip()))
                if e.code == 404:
                    raise LavaError('notfound', 'LAVA at %s has no %s' % (self.url, rel))
                if e.code >= 500 and attempt < 2:
                    time.sleep(2)
                    continue
                raise LavaError('http', 'LAVA at %s: HTTP %d on %s: %s'
                                % (self.url, e.code, rel, text.strip()))
            except (urllib.error.URLError, socket.timeout, ConnectionError) as e:
                if attempt < 2:
                    time.sleep(1)
                    continue
                raise LavaError('unreachable', 'LAVA at %s is unreachable (%s)' %
                                (self.url, getattr(e, 'reason', e)))
        return out if raw else json.loads(out.decode() or 'null')

    def get(self, rel):
        return self.request(rel)

    def list(self, rel):
        """Every object of a paginated list."""
        out, nxt = [], rel + ('&' if '?' in rel else '?') + 'limit=500'
        while nxt:
            page = self.request(nxt)
            if isinstance(page, list):
                return page
            out += page.get('results', [])
            nxt = page.get('next')
        return out

    def check(self):
        """One request that needs the token: a bad URL or token raises."""
        if not self.token:
            self.get('system/version/')
            raise LavaError('token', 'no token for LAVA at %s: give --token or LAVA_TOKEN'
                            % self.url)
        me = self.get('system/whoami/')
        if not me or not me.get('user'):
            raise LavaError('token', 'LAVA at %s did not accept the token (anonymous)' % self.url)
        return me['user']

    def devices(self):
        """The lab's devices that are not retired."""
        return [d for d in self.list('devices/') if d.get('health') != 'Retired']

    def submit(self, definition):
        r = self.request('jobs/', {'definition': definition})
        ids = r.get('job_ids') or ([r['job_id']] if r.get('job_id') else [])
        if not ids:
            raise LavaError('http', 'LAVA did not take the job: %s' % r.get('message', r))
        return ids[0]

    def job(self, jid):
        return self.get('jobs/%d/' % jid)

    def wait(self, jids, timeout, poll=5, progress=None, more=None, queued=None):
        """The one LAVA wait loop: until every job of @jids ended, and those
        more(n) adds (called each round with the n still waited for: new
        ids, [] for none); each job cancelled when not ended @timeout s
        after the wait took it (its health Canceled).  progress(id, job,
        secs) when one ends; queued(n) when all n waited for are still
        queued (it may raise).  {id: job}."""
        t0, done = time.time(), {}
        since = dict.fromkeys(jids, t0)
        while True:
            if more:
                for j in more(len(since) - len(done)):
                    since[j] = time.time()
            left = [j for j in since if j not in done]
            if not left:
                break
            waiting = 0
            for j in left:
                job = self.job(j)
                if job.get('state') == 'Finished':
                    done[j] = job
                    if progress:
                        progress(j, job, time.time() - since[j])
                else:
                    waiting += job.get('state') == 'Submitted'
            left = [j for j in left if j not in done]
            if not left:
                continue
            if queued and waiting == len(left):
                queued(waiting)
            late = [j for j in left if time.time() - since[j] > timeout]
            for j in late:
                self.cancel(j)
                done[j] = dict(self.job(j), health='Canceled',
                               failure_comment='not done after %d s: cancelled' % timeout)
            if not late:
                time.sleep(poll)
        return done

    def cancel(self, jid):
        try:
            self.request('jobs/%d/cancel/' % jid)
        except LavaError:
            pass

    def tests(self, jid):
        """The job's test cases: name, result, measurement, unit, suite."""
        suites = {s['id']: s['name'] for s in self.list('jobs/%d/suites/' % jid)}
        out = []
        for t in self.list('jobs/%d/tests/' % jid):
            t['suite_name'] = suites.get(t.get('suite'), str(t.get('suite')))
            out.append(t)
        return out

    def log(self, jid):
        try:
            return self.request('jobs/%d/logs/' % jid, raw=True).decode(errors='replace')
        except LavaError:
            return ''

    def reason(self, job, tests=None):
        """LAVA's words for why a job did not complete: its failure
        comment, else the error of its `lava` suite's `job` case."""
        why = (job.get('failure_comment') or '').strip()
        for t in tests or []:
            if why or t.get('suite_name') != 'lava' or t.get('result') != 'fail':
                continue
            meta = {}
            for ln in str(t.get('metadata') or '').splitlines():
                k, _, v = ln.partition(':')
                meta[k.strip()] = v.strip()
            if meta.get('error_msg'):
                why = '%s: %s' % (meta.get('error_type', 'Error'), meta['error_msg'])
        return why.replace('\n', ' ')[:400] or 'no reason given'

    def keep(self, jid, out, definition=None):
        """The job's definition, log, results and record under @out/job-ID."""
        d = os.path.join(out, 'job-%d' % jid)
        os.makedirs(d, exist_ok=True)
        job = self.job(jid)
        tests = self.tests(jid)
        with open(os.path.join(d, 'job.json'), 'w') as f:
            json.dump(job, f, indent=1)
        with open(os.path.join(d, 'results.json'), 'w') as f:
            json.dump(tests, f, indent=1)
        with open(os.path.join(d, 'log.yaml'), 'w') as f:
            f.write(self.log(jid))
        if definition is None:
            definition = job.get('definition', '')
        with open(os.path.join(d, 'definition.yaml'), 'w') as f:
            f.write(definition or '')
        return job, tests
