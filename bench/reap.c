/* reap COMMAND [ARG...]: runs COMMAND and waits for every process it leaves
   behind (PR_SET_CHILD_SUBREAPER), then exits with COMMAND's status.

   Why: a timer outside (hyperfine, /usr/bin/time) counts the CPU of the
   processes a command waited for. `bwrap` never waits for the sandbox's
   PID 1: it exits when the program's status arrives, and the kernel kills
   PID 1 after it (--die-with-parent), so the sandbox's set-up (mounts, the
   fork of the program) is missing from bwrap's figures. ploy waits for its
   init. Run under this wrapper, both commands are charged for every process
   they start, and the wrapper's own cost (one fork and exec) is the same on
   both sides. Build: cc -O2 -o reap bench/reap.c */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: reap COMMAND [ARG...]\n");
        return 2;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("reap: prctl(PR_SET_CHILD_SUBREAPER)");
        return 2;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("reap: fork");
        return 2;
    }
    if (child == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int code = 0;
    for (;;) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break; /* ECHILD: every descendant has been reaped */
        }
        if (pid == child)
            code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return code;
}
