"""pyserver.py: python3 for the tests without python3's start each time.

    /usr/bin/python3 tests/helpers/pyserver.py SOCKET [MODULE...] [--heavy MODULE...]

tests/run.sh starts one for a whole make check.  It imports numpy and onnx
(or the MODULEs) once, those installed (numpy's import costs 0.1 s of CPU,
torch's 1.2 s, and the suite started python3 about two thousand times),
listens on the Unix socket SOCKET and serves py-client
(tests/helpers/py-client.c), which takes python3's command line: for each
client it forks a copy of itself that takes the client's standard input,
output and error (passed over the socket), its working directory,
environment and arguments, and runs the program as python3 would (-c CODE,
- for the program on stdin, or a script); the client exits with its exit
status.  Each run is a fresh fork of the server, so runs share nothing;
the server waits for them, so their CPU time counts in its own.

The heavy modules (torch and torchvision, or those after --heavy) are
imported by a second server, a fork of the first listening on
SOCKET.heavy: a fork of a process that holds torch cost 16 ms of CPU (its
page tables copied, then torn down), one without it 4 ms, and few
programs use torch.  A program whose text names a heavy module (as a
word) is handed on to that server by the fork that read it, as py-client
would hand it (a program read from stdin through a pipe, as stdin);
without --heavy and with MODULEs given there is no second server.

Ends on SIGTERM, when SOCKET is removed or when its parent ends.
"""
import array
import os
import re
import select
import signal
import socket
import struct
import sys
import traceback

MODULES = ("numpy", "onnx", "onnx.helper", "onnx.numpy_helper")
HEAVY = ("torch", "torchvision")
# in a fork of the first server: the second's socket, and what a program
# names to be handed on to it
HEAVY_PATH = None
HEAVY_RE = None


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        got = conn.recv(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf


def request(conn):
    """(fds, cwd, argv, env) of a client: a 4-byte length with the three
    descriptors, then cwd, argc, the arguments and the environment, each
    NUL-ended."""
    fds = array.array("i")
    msg, anc, _, _ = conn.recvmsg(4, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
    if len(msg) < 4:
        msg += recv_exact(conn, 4 - len(msg))
    (n,) = struct.unpack("=I", msg)
    fields = recv_exact(conn, n).split(b"\0")[:-1]
    if len(fds) != 3:
        raise EOFError
    cwd, argc = fields[0], int(fields[1])
    argv = [os.fsdecode(a) for a in fields[2:2 + argc]]
    env = dict(e.split(b"=", 1) for e in fields[2 + argc:] if b"=" in e)
    return list(fds), cwd, argv, env


# The scripts the server compiled, each once a check (a 2,000-line test
# script took 15 to 20 ms of CPU to compile, and forks compiled it again on
# every run): (path, inode, mtime, size) -> (text, code).
SCRIPTS = {}


def script(cwd, argv):
    """(text, code) of the script ARGV runs, compiled here (in the server,
    before the fork) and kept for the next run; None for -c or -, and for
    a script that cannot be read or compiled (the run reports that as
    python3 would)."""
    if not argv or argv[0].startswith("-"):
        return None
    path = os.path.join(os.fsdecode(cwd), argv[0])
    try:
        st = os.stat(path)
        key = (path, st.st_ino, st.st_mtime_ns, st.st_size)
        hit = SCRIPTS.get(key)
        if hit is None:
            with open(path, "rb") as f:
                src = f.read()
            hit = SCRIPTS[key] = (src, compile(src, argv[0], "exec"))
        return hit
    except Exception:
        return None


def run(argv, compiled=None):
    """python3 ARGV's program in this process (the script's text and code
    when the server compiled it); its exit status."""
    code = 0
    try:
        if not argv:
            sys.exit("py-client: no program (-c CODE, - or a script)")
        if argv[0] == "-c":
            sys.argv = ["-c"] + argv[2:]
            sys.path[0] = ""
            src, name = argv[1], "<string>"
        elif argv[0] == "-":
            sys.argv = argv
            sys.path[0] = ""
            src, name = sys.stdin.read(), "<stdin>"
        elif argv[0].startswith("-"):
            sys.exit("py-client: python3 option %s is not served" % argv[0])
        else:
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            name = argv[0]
            if compiled:
                src = compiled[0]
            else:
                with open(name, "rb") as f:
                    src = f.read()
        if HEAVY_PATH and HEAVY_RE.search(src if isinstance(src, bytes) else src.encode()):
            code = hand_on(argv, src)
            if code is not None:
                return code
        main = type(sys)("__main__")
        if name[0] != "<":
            main.__file__ = os.path.abspath(name)
        main.__builtins__ = __builtins__
        sys.modules["__main__"] = main
        exec(compiled[1] if compiled else compile(src, name, "exec"), main.__dict__)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:
        # as python3 prints it: without this function's frame
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        code = 1
    try:
        import atexit
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    return code & 0xff


def hand_on(argv, src):
    """ARGV's program (its text src) run by the heavy server, as py-client
    would ask it, on this process's descriptors, directory and
    environment; its exit status, or None when that server is not there."""
    fds = [0, 1, 2]
    fields = [os.getcwdb(), str(len(argv)).encode()] + [os.fsencode(a) for a in argv] + \
        [k + b"=" + v for k, v in os.environb.items()]
    payload = b"".join(f + b"\0" for f in fields)
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(HEAVY_PATH)
    except OSError:
        return None
    pipe = None
    if argv[0] == "-":      # the program was stdin: it is the other's stdin
        pipe = os.pipe()
        fds[0] = pipe[0]
    with conn:
        conn.sendmsg([struct.pack("=I", len(payload))],
                     [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        conn.sendall(payload)
        if pipe:
            os.close(pipe[0])
            with open(pipe[1], "wb") as w:
                w.write(src.encode())
        (code,) = struct.unpack("=i", recv_exact(conn, 4))
    return code


def start(conn, others):
    """Fork a copy of the server that runs the client's program on its
    descriptors; its pid, or None when the request was not whole."""
    try:
        fds, cwd, argv, env = request(conn)
    except (EOFError, OSError, ValueError):
        return None
    compiled = script(cwd, argv)
    pid = os.fork()
    if pid == 0:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        for o in others:
            o.close()
        conn.close()
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False, buffering=1, errors="backslashreplace")
        os.environ.clear()
        os.environ.update({os.fsdecode(k): os.fsdecode(v) for k, v in env.items()})
        try:
            os.chdir(cwd)
        except OSError as e:
            print("py-client: %s" % e, file=sys.stderr)
            os._exit(1)
        os._exit(run(argv, compiled))
    for fd in fds:
        os.close(fd)
    return pid


def listen(path):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    return listener


def serve(listener, path):
    ino, parent = os.stat(path).st_ino, os.getppid()
    # SIGCHLD wakes the select below through the pipe
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    running = {}    # pid -> the client's connection
    while True:
        ready, _, _ = select.select([listener, wake_r], [], [], 5)
        if wake_r in ready:
            os.read(wake_r, 512)
        # the runs that ended: their exit status (128 + N for signal N)
        # to their clients; waited for, so that their CPU time counts in
        # the server's, and in make check's
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = running.pop(pid, None)
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(struct.pack("=i", code if code >= 0 else 128 - code))
            except OSError:
                pass
            conn.close()
        if listener in ready:
            conn, _ = listener.accept()
            pid = start(conn, [listener] + list(running.values()))
            if pid is None:
                conn.close()
            else:
                running[pid] = conn
        elif not ready:
            if os.getppid() != parent:  # run.sh was killed, and left it
                break
            try:
                if os.stat(path).st_ino != ino:
                    break
            except OSError:
                break


def imports(modules):
    for m in modules:
        try:
            __import__(m)
        except Exception:   # not installed, or broken: a run imports it itself
            pass


def main():
    global HEAVY_PATH, HEAVY_RE
    path, modules = sys.argv[1], sys.argv[2:]
    heavy = ()
    if "--heavy" in modules:
        i = modules.index("--heavy")
        modules, heavy = modules[:i], modules[i + 1:]
    elif not modules:
        modules, heavy = MODULES, HEAVY
    imports(modules)
    listener = listen(path)
    if not heavy:
        serve(listener, path)
        return
    # the second server listens before it imports: requests wait for it
    heavy_listener = listen(path + ".heavy")
    pid = os.fork()
    if pid == 0:
        listener.close()
        imports(heavy)
        serve(heavy_listener, path + ".heavy")
        return
    heavy_listener.close()
    HEAVY_PATH = path + ".heavy"
    names = sorted({m.split(".")[0] for m in heavy})
    HEAVY_RE = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b")
    try:
        serve(listener, path)
    finally:
        # its CPU time (and its runs') into this one's
        try:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        except OSError:
            pass


if __name__ == "__main__":
    main()
