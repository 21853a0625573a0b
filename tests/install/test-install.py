#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs the build into a temporary prefix (meson install --destdir) and
# checks every installed file, then that a desktop sees our MIME types, maps
# them to our desktop file, and recognises real trace files by name and by
# content.
#
# Usage: test-install.py MESON BUILD_ROOT SOURCE_ROOT
# Output: TAP.

import configparser
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from ks_tap import finish, ok

APP_ID = 'org.kinescope.Kinescope'
KSCOPE_APPLICATION_ID = 0x4B53434F  # "KSCO"

meson, build_root, source_root = sys.argv[1:4]


def run(argv, env=None, check=True, cwd=None):
    try:
        p = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    except OSError as e:
        p = subprocess.CompletedProcess(argv, 127, '', '%s: %s' % (argv[0], e))
    if check and p.returncode != 0:
        raise RuntimeError('%s failed (%d):\n%s%s' % (' '.join(argv), p.returncode,
                                                      p.stdout, p.stderr))
    return p


def introspect(what):
    return json.loads(run([meson, 'introspect', what, build_root]).stdout)


def option(options, name):
    for o in options:
        if o['name'] == name:
            return o['value']
    raise KeyError(name)


def is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


def main():
    tmp = tempfile.mkdtemp(prefix='kinescope-install-')
    try:
        check_install(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


def check_install(tmp):
    options = introspect('--buildoptions')
    prefix = option(options, 'prefix')
    datadir = option(options, 'datadir')
    bindir = option(options, 'bindir')
    localedir = option(options, 'localedir')
    gui = option(options, 'gui') != 'disabled' and os.path.exists(
        os.path.join(build_root, 'src', 'app', 'kinescope'))

    destdir = os.path.join(tmp, 'dest')
    root = destdir + prefix
    share = os.path.join(root, datadir)
    bin_dir = os.path.join(root, bindir)

    p = run([meson, 'install', '-C', build_root, '--no-rebuild', '--quiet',
             '--destdir', destdir], check=False)
    if not ok(p.returncode == 0, 'meson install --destdir', p.stdout + p.stderr):
        return

    # 1. Everything meson says it installs is there and not empty.
    installed = introspect('--installed')
    installed_paths = sorted(set(installed.values()))
    missing = [d for d in installed_paths if not os.path.lexists(destdir + d)]
    ok(not missing, 'all %d installed files exist' % len(installed_paths),
       '\n'.join(missing))
    empty = [d for d in installed_paths
             if os.path.isfile(destdir + d) and os.path.getsize(destdir + d) == 0]
    ok(not empty, 'no installed file is empty', '\n'.join(empty))

    # 2. The desktop integration files are among them.
    required = [
        os.path.join(datadir, 'mime', 'packages', APP_ID + '.xml'),
        os.path.join(datadir, 'glib-2.0', 'schemas', APP_ID + '.gschema.xml'),
        os.path.join(datadir, 'kinescope', 'loader_bound.pt.trace.json.gz'),
        os.path.join(localedir, 'zh_CN', 'LC_MESSAGES', 'kinescope.mo'),
        os.path.join(bindir, 'kinescope-cli'),
    ]
    if gui:
        required += [
            os.path.join(bindir, 'kinescope'),
            os.path.join(bindir, 'kinescope-thumbnailer'),
            os.path.join(datadir, 'applications', APP_ID + '.desktop'),
            os.path.join(datadir, 'metainfo', APP_ID + '.metainfo.xml'),
            os.path.join(datadir, 'icons', 'hicolor', 'scalable', 'apps', APP_ID + '.svg'),
            os.path.join(datadir, 'icons', 'hicolor', 'symbolic', 'apps',
                         APP_ID + '-symbolic.svg'),
            os.path.join(datadir, 'thumbnailers', 'kinescope.thumbnailer'),
        ]
    for rel in required:
        ok(os.path.isfile(os.path.join(root, rel)), 'installed: ' + rel)

    # 3. Each installed file is valid for its kind.
    for d in installed_paths:
        path = destdir + d
        if not os.path.isfile(path):
            continue
        name = os.path.basename(path)
        if name.endswith('.desktop'):
            p = run(['desktop-file-validate', path], check=False)
            ok(p.returncode == 0 and not p.stdout.strip(), 'desktop-file-validate ' + name,
               p.stdout + p.stderr)
        elif name.endswith('.metainfo.xml'):
            p = run(['appstreamcli', 'validate', '--no-net', '--explain', path], check=False)
            ok(p.returncode == 0, 'appstreamcli validate ' + name, p.stdout + p.stderr)
        elif name.endswith('.xml') or name.endswith('.svg'):
            p = run(['xmllint', '--noout', path], check=False)
            ok(p.returncode == 0, 'xmllint ' + name, p.stderr)
        elif name.endswith('.mo'):
            p = run(['msgunfmt', path], check=False)
            ok(p.returncode == 0 and p.stdout.count('msgid "') > 20
               and '时间线' in p.stdout, 'message catalogue ' + d, p.stderr)
        elif name.endswith('.gz'):
            p = run(['gzip', '-t', path], check=False)
            ok(p.returncode == 0, 'gzip -t ' + name, p.stderr)
        elif name.endswith('.thumbnailer'):
            check_thumbnailer_entry(path, root, bindir)
        elif name.endswith('.so') or d.startswith(os.path.join(prefix, bindir) + '/'):
            ok(is_elf(path), 'ELF file ' + d)
            if not name.endswith('.so'):
                ok(os.access(path, os.X_OK), 'executable ' + d)

    check_no_build_paths(destdir, installed_paths, tmp)

    schemas = os.path.join(share, 'glib-2.0', 'schemas')
    p = run(['glib-compile-schemas', '--strict', schemas], check=False)
    ok(p.returncode == 0 and os.path.exists(os.path.join(schemas, 'gschemas.compiled')),
       'glib-compile-schemas --strict on the installed schemas', p.stderr)

    p = run([os.path.join(bin_dir, 'kinescope-cli'), '--help'], check=False)
    ok(p.returncode == 0 and 'kinescope-cli' in (p.stdout + p.stderr),
       'installed kinescope-cli runs', p.stdout + p.stderr)

    # 4. The desktop databases, as the post-install step builds them.
    p = run(['update-mime-database', os.path.join(share, 'mime')],
            env=dict(os.environ, XDG_DATA_DIRS=share), check=False)
    ok(p.returncode == 0 and not p.stderr.strip(), 'update-mime-database', p.stderr)
    if gui:
        p = run(['update-desktop-database', os.path.join(share, 'applications')], check=False)
        ok(p.returncode == 0, 'update-desktop-database', p.stderr)

    home = os.path.join(tmp, 'home')
    os.makedirs(os.path.join(home, '.local', 'share'))
    os.makedirs(os.path.join(home, '.config'))
    env = dict(os.environ)
    for k in ('XDG_CURRENT_DESKTOP', 'DESKTOP_SESSION', 'GNOME_DESKTOP_SESSION_ID',
              'KDE_FULL_SESSION', 'DBUS_SESSION_BUS_ADDRESS'):
        env.pop(k, None)
    env.update({
        'HOME': home,
        'XDG_DATA_HOME': os.path.join(home, '.local', 'share'),
        'XDG_CONFIG_HOME': os.path.join(home, '.config'),
        'XDG_CONFIG_DIRS': os.path.join(tmp, 'etc-xdg'),
        # The system's own types (SQLite, JSON, gzip) stay visible, ours come first.
        'XDG_DATA_DIRS': share + os.pathsep + '/usr/share',
        'PATH': bin_dir + os.pathsep + env.get('PATH', '/usr/bin:/bin'),
        'GIO_USE_VFS': 'local',
    })
    gnome_env = dict(env, XDG_CURRENT_DESKTOP='GNOME')

    # 5. Files are recognised: by extension, and a .kscope by content alone.
    files = os.path.join(tmp, 'files')
    os.makedirs(files)
    kscope = os.path.join(files, 'run.kscope')
    p = run(['sqlite3', kscope,
             'PRAGMA application_id = %d; CREATE TABLE StringIds (id INTEGER PRIMARY KEY, '
             'value TEXT NOT NULL); INSERT INTO StringIds VALUES (1, \'x\');'
             % KSCOPE_APPLICATION_ID], check=False)
    ok(p.returncode == 0, 'sqlite3 CLI writes a database with application_id 0x4B53434F',
       p.stderr)
    with sqlite3.connect(kscope) as db:
        ok(db.execute('PRAGMA application_id').fetchone()[0] == KSCOPE_APPLICATION_ID,
           'the .kscope database carries our application id')
    renamed = os.path.join(files, 'recording-without-extension')
    shutil.copy(kscope, renamed)
    foreign = os.path.join(files, 'report.sqlite')
    with sqlite3.connect(foreign) as db:
        db.execute('CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER)')
    demo_gz = os.path.join(share, 'kinescope', 'loader_bound.pt.trace.json.gz')
    demo_json = os.path.join(files, 'loader_bound.pt.trace.json')
    with open(demo_json, 'wb') as out:
        out.write(run_bytes(['gzip', '-dc', demo_gz]))

    # A real recording format file: the demo trace saved by the installed
    # kinescope-cli, with an unrelated extension too.
    converted = os.path.join(files, 'loader_bound.kscope')
    p = run([os.path.join(bin_dir, 'kinescope-cli'), 'convert', demo_gz, converted], check=False)
    ok(p.returncode == 0 and os.path.isfile(converted),
       'installed kinescope-cli convert writes a .kscope', p.stdout + p.stderr)
    converted_renamed = os.path.join(files, 'loader_bound.db')
    if os.path.isfile(converted):
        shutil.copy(converted, converted_renamed)

    expect = [
        (converted, 'application/x-kinescope-trace'),
        (converted_renamed, 'application/x-kinescope-trace'),
        (kscope, 'application/x-kinescope-trace'),
        (renamed, 'application/x-kinescope-trace'),
        (foreign, 'application/vnd.sqlite3'),
        (demo_gz, 'application/x-pytorch-trace-gzip'),
        (demo_json, 'application/x-pytorch-trace'),
    ]
    for path, mime in expect:
        p = run(['gio', 'info', '-a', 'standard::content-type', path], env=env, check=False)
        got = p.stdout.strip().split()[-1] if p.stdout.strip() else p.stderr.strip()
        ok(got == mime, 'gio info: %s is %s' % (os.path.basename(path), mime), 'got ' + got)
        p = run(['xdg-mime', 'query', 'filetype', path], env=gnome_env, check=False)
        ok(p.stdout.strip() == mime,
           'xdg-mime query filetype: %s is %s' % (os.path.basename(path), mime),
           'got %r %s' % (p.stdout.strip(), p.stderr))

    # 6. Our types resolve to our desktop file ("double-click opens it"), and
    #    Nsight Systems SQLite exports offer Kinescope in "Open With".
    if gui:
        desktop_id = APP_ID + '.desktop'
        for mime in ('application/x-kinescope-trace', 'application/x-pytorch-trace',
                     'application/x-pytorch-trace-gzip'):
            p = run(['gio', 'mime', mime], env=env, check=False)
            ok(p.returncode == 0 and ('Default application for “%s”: %s' % (mime, desktop_id))
               in p.stdout, 'gio mime %s → %s' % (mime, desktop_id), p.stdout + p.stderr)
            p = run(['xdg-mime', 'query', 'default', mime], env=env, check=False)
            ok(p.stdout.strip() == desktop_id,
               'xdg-mime query default %s → %s' % (mime, desktop_id),
               'got %r %s' % (p.stdout.strip(), p.stderr))
        # nvidia-smi --format=csv logs: offered, never the default
        for mime in ('application/vnd.sqlite3', 'application/x-sqlite3', 'text/csv'):
            p = run(['gio', 'mime', mime], env=env, check=False)
            registered = p.stdout.split('Registered applications:')[-1]
            ok(desktop_id in registered, 'gio mime %s lists %s' % (mime, desktop_id),
               p.stdout + p.stderr)
        ok(os.path.isfile(os.path.join(share, 'icons', 'hicolor', 'scalable', 'apps',
                                       APP_ID + '.svg')), 'the desktop file icon exists')
        check_desktop_entry(os.path.join(share, 'applications', desktop_id), bin_dir)
        check_thumbnail(root, bindir, kscope, converted, tmp)


def check_no_build_paths(destdir, installed_paths, tmp):
    """Installed programs and libraries name neither the build tree nor the
    source tree: run from the build tree they find its files at run time
    (src/common/ks-paths.c), installed they use the prefix alone. The debug
    information is left out of the search: it records the compiler's working
    folder for debuggers, and distributions ship it apart."""
    roots = {os.path.realpath(build_root), os.path.realpath(source_root)}
    stripped = os.path.join(tmp, 'stripped')
    for d in installed_paths:
        path = destdir + d
        if not os.path.isfile(path) or os.path.islink(path) or not is_elf(path):
            continue
        p = run(['objcopy', '--strip-debug', path, stripped], check=False)
        if not ok(p.returncode == 0, 'objcopy --strip-debug ' + d, p.stderr):
            continue
        p = run(['strings', '-a', stripped], check=False)
        found = sorted({line for line in p.stdout.splitlines()
                        if any(r in line for r in roots)})
        ok(p.returncode == 0 and not found,
           'strings of %s name no build or source folder' % d, '\n'.join(found))


def run_bytes(argv):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE).stdout


def check_desktop_entry(path, bin_dir):
    """The launcher runs the installed binary, and "Record New Session"
    runs it with --record."""
    kf = configparser.ConfigParser(interpolation=None)
    kf.optionxform = str
    kf.read(path, encoding='utf-8')
    entry = kf['Desktop Entry']
    exe = entry.get('Exec', '').split()[0]
    ok(os.access(os.path.join(bin_dir, exe), os.X_OK), 'desktop file runs the installed ' + exe)
    ok('record' in entry.get('Actions', '').split(';') and
       kf.has_section('Desktop Action record') and
       kf['Desktop Action record'].get('Exec') == 'kinescope --record',
       'desktop action "Record New Session" runs kinescope --record')
    ok('Name[zh_CN]' in entry and 'Comment[zh_CN]' in entry,
       'the desktop file carries the zh_CN translation')


def check_thumbnailer_entry(path, root, bindir):
    kf = configparser.ConfigParser(interpolation=None)
    kf.optionxform = str
    kf.read(path)
    ok(kf.has_section('Thumbnailer Entry'), 'kinescope.thumbnailer has [Thumbnailer Entry]')
    if not kf.has_section('Thumbnailer Entry'):
        return
    entry = kf['Thumbnailer Entry']
    try_exec = entry.get('TryExec', '')
    ok(os.path.isfile(os.path.join(root, bindir, os.path.basename(try_exec))),
       'thumbnailer TryExec %s is installed' % try_exec)
    exec_line = entry.get('Exec', '')
    ok(all(x in exec_line for x in ('%s', '%i', '%o')), 'thumbnailer Exec takes %s %i %o',
       exec_line)
    mimes = [m for m in entry.get('MimeType', '').split(';') if m]
    ok('application/x-kinescope-trace' in mimes, 'thumbnailer handles .kscope files',
       ' '.join(mimes))


def check_thumbnail(root, bindir, kscope, converted, tmp):
    """Runs the installed thumbnailer as a file manager would: the Exec line
    of kinescope.thumbnailer with %s %i %o filled in."""
    thumbnailer = os.path.join(root, bindir, 'kinescope-thumbnailer')
    if not os.path.exists(thumbnailer):
        return
    out = os.path.join(tmp, 'thumb.png')
    p = run([thumbnailer, '-s', '128', converted, out], check=False)
    ok(p.returncode == 0 and os.path.exists(out), 'installed thumbnailer draws the .kscope demo',
       p.stdout + p.stderr)
    if os.path.exists(out):
        with open(out, 'rb') as f:
            ok(f.read(8) == b'\x89PNG\r\n\x1a\n', 'thumbnail is a PNG')
    # The hand-made .kscope has no events: a clear error, no picture, no crash.
    bad_out = os.path.join(tmp, 'bad.png')
    p = run([thumbnailer, '-s', '128', kscope, bad_out], check=False)
    ok(p.returncode == 1 and not os.path.exists(bad_out) and 'run.kscope' in p.stderr,
       'thumbnailer reports an unusable trace by name', p.stdout + p.stderr)


if __name__ == '__main__':
    main()
