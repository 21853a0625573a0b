#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The programs run straight from the build tree (the README's first command)
# speak the user's language: kinescope-cli and the application find the
# catalogue that the build compiles into <build>/po/zh_CN/LC_MESSAGES, not
# only an installed one.
#
# The session asks for Chinese as a user would, with LANG=zh_CN.UTF-8; the
# locale is compiled into a temporary folder (LOCPATH) when the system has
# not generated it. Without localedef it falls back to LANGUAGE=zh_CN in the
# C.UTF-8 locale, which gettext honours just the same.
#
# Usage: check-uninstalled-i18n.py BUILD_ROOT SOURCE_ROOT
# Output: TAP.

import os
import shutil
import subprocess
import sys
import tempfile
import time

from ks_tap import finish, ok, skip

build_root, source_root = sys.argv[1:3]


def chinese_env(tmp):
    env = dict(os.environ)
    for k in ('LC_ALL', 'LC_MESSAGES', 'LANGUAGE', 'LANG'):
        env.pop(k, None)
    have = subprocess.run(['locale', '-a'], stdout=subprocess.PIPE, text=True).stdout.split()
    if any(l.lower() in ('zh_cn.utf8', 'zh_cn.utf-8') for l in have):
        env['LANG'] = 'zh_CN.UTF-8'
        return env, 'LANG=zh_CN.UTF-8'
    locpath = os.path.join(tmp, 'locale')
    os.makedirs(locpath)
    if shutil.which('localedef'):
        p = subprocess.run(['localedef', '-i', 'zh_CN', '-f', 'UTF-8',
                            os.path.join(locpath, 'zh_CN.UTF-8')],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if os.path.isdir(os.path.join(locpath, 'zh_CN.UTF-8')):
            env['LOCPATH'] = locpath
            env['LANG'] = 'zh_CN.UTF-8'
            return env, 'LANG=zh_CN.UTF-8 (locale compiled into LOCPATH)'
    env['LC_ALL'] = 'C.UTF-8'
    env['LANGUAGE'] = 'zh_CN'
    return env, 'LANGUAGE=zh_CN in C.UTF-8'


def check_cli(env, how):
    cli = os.path.join(build_root, 'src', 'cli', 'kinescope-cli')
    demo = os.path.join(source_root, 'data', 'loader_bound.pt.trace.json.gz')
    p = subprocess.run([cli, 'info', demo], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    out = p.stdout + p.stderr
    ok(p.returncode == 0 and '文件：' in p.stdout and '时长：' in p.stdout
       and 'Duration:' not in p.stdout,
       'uninstalled kinescope-cli info speaks Chinese (%s)' % how, out)
    p = subprocess.run([cli], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ok('用法：' in p.stderr and 'Usage:' not in p.stderr,
       'uninstalled kinescope-cli usage speaks Chinese', p.stderr)


def window_names():
    p = subprocess.run(['xwininfo', '-root', '-tree'], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.stdout


def check_app(env, how, tmp):
    app = os.path.join(build_root, 'src', 'app', 'kinescope')
    if not os.path.exists(app):
        skip('application not built')
        return
    if not os.environ.get('DISPLAY') or not shutil.which('xwininfo'):
        skip('no display or no xwininfo: the application is not started')
        return

    home = os.path.join(tmp, 'home')
    os.makedirs(home)
    env = dict(env, HOME=home, XDG_CONFIG_HOME=os.path.join(home, '.config'),
               XDG_DATA_HOME=os.path.join(home, '.local', 'share'),
               XDG_CACHE_HOME=os.path.join(home, '.cache'),
               XDG_STATE_HOME=os.path.join(home, '.local', 'state'),
               GSETTINGS_BACKEND='memory')
    env.pop('DBUS_SESSION_BUS_ADDRESS', None)
    # "Record New Session" opens as a window of its own, titled in the
    # user's language.
    proc = subprocess.Popen([app, '--record'], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    names = ''
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            names = window_names()
            if '"录制新会话"' in names or '"Record New Session"' in names:
                break
            if proc.poll() is not None:
                break
            time.sleep(0.2)
    finally:
        proc.kill()
        out = proc.communicate()[0].decode('utf-8', 'replace')
    ok('"录制新会话"' in names and '"Record New Session"' not in names,
       'uninstalled kinescope shows “录制新会话” (%s)' % how, names + out)


def main():
    tmp = tempfile.mkdtemp(prefix='kinescope-i18n-')
    try:
        env, how = chinese_env(tmp)
        check_cli(env, how)
        check_app(env, how, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


if __name__ == '__main__':
    main()
