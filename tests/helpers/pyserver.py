"""pyserver.py: python3 for the tests without python3's start each time.

    /usr/bin/python3 tests/helpers/pyserver.py SOCKET [MODULE...]

tests/run.sh starts one for a whole make check.  It imports numpy, onnx,
torch and torchvision (or the MODULEs) once, those installed (numpy's
import costs 0.1 s of CPU, torch's 1.2 s, and the suite started python3
about two thousand times), listens on the Unix socket SOCKET and serves py-client
(tests/helpers/py-client.c), which takes python3's command line: for each
client it forks a copy of itself that takes the client's standard input,
output and error (passed over the socket), its working directory,
environment and arguments, and runs the program as python3 would (-c CODE,
- for the program on stdin, or a script); the client exits with its exit
status.  Each run is a fresh fork of the server, so runs share nothing;
the server waits for them, so their CPU time counts in its own.
Ends on SIGTERM, when SOCKET is removed or when its parent ends.
"""
import array
import os
import select
import signal
import socket
import struct
import sys
import traceback

MODULES = ("numpy", "onnx", "onnx.helper", "onnx.numpy_helper", "torch", "torchvision")


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


def run(argv):
    """python3 ARGV's program in this process; its exit status."""
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
            with open(name, "rb") as f:
                src = f.read()
        main = type(sys)("__main__")
        if name[0] != "<":
            main.__file__ = os.path.abspath(name)
        main.__builtins__ = __builtins__
        sys.modules["__main__"] = main
        exec(compile(src, name, "exec"), main.__dict__)
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


def start(conn, others):
    """Fork a copy of the server that runs the client's program on its
    descriptors; its pid, or None when the request was not whole."""
    try:
        fds, cwd, argv, env = request(conn)
    except (EOFError, OSError, ValueError):
        return None
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
        os._exit(run(argv))
    for fd in fds:
        os.close(fd)
    return pid


def main():
    path = sys.argv[1]
    for m in sys.argv[2:] or MODULES:
        try:
            __import__(m)
        except Exception:   # not installed, or broken: a run imports it itself
            pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
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


if __name__ == "__main__":
    main()
