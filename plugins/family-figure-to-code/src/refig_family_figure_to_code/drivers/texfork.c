/* refig's xelatex fork server: preloaded into one xelatex (LD_PRELOAD) that has read a
 * program's shared preamble, it forks a fresh child per document at the point where the
 * preamble ends, so each document starts from the state a cold run reaches there.
 *
 * The server's main file ends with `\@@input figure.tex`. The first time xelatex opens a file
 * named figure.tex for reading, this library says REFIG-READY on standard output and reads jobs
 * from standard input, one folder a line. For each it forks: the child moves into the folder,
 * writes its terminal output to refig-output.log, its log to the folder's own figure.log, and
 * is handed the folder's refig-rest.tex (the program after the shared lines, those lines
 * replaced by comment lines so that line numbers are the program's) as the file figure.tex;
 * the parent waits for it and answers REFIG-DONE<TAB>exit status. Every later open in a child
 * is xelatex's own. xelatex never reads the terminal in nonstop mode, so standard input is
 * this library's alone; the child's standard input is /dev/null.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int served;

static void say(const char *text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(STDOUT_FILENO, text, left);
    if (n <= 0) _exit(75);
    text += n;
    left -= (size_t)n;
  }
}

/* One line of standard input into `line` (without its newline); 0 at the end of input. */
static int read_line(char *line, size_t size) {
  size_t used = 0;
  for (;;) {
    char c;
    ssize_t n = read(STDIN_FILENO, &c, 1);
    if (n <= 0) return 0;
    if (c == '\n') break;
    if (used + 1 < size) line[used++] = c;
  }
  line[used] = '\0';
  return 1;
}

/* Point every descriptor open on a .log file (xelatex's log) at the folder's figure.log. */
static void own_log(void) {
  DIR *fds = opendir("/proc/self/fd");
  if (fds == NULL) return;
  struct dirent *entry;
  while ((entry = readdir(fds)) != NULL) {
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%s", entry->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 5) continue;
    target[n] = '\0';
    if (atoi(entry->d_name) <= STDERR_FILENO || strcmp(target + n - 4, ".log") != 0) continue;
    int log = open("figure.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, atoi(entry->d_name));
      close(log);
    }
  }
  closedir(fds);
}

static FILE *serve(FILE *(*real)(const char *, const char *), const char *mode) {
  char folder[PATH_MAX], answer[64];
  fflush(NULL); /* nothing xelatex buffered may be written twice */
  unsetenv("LD_PRELOAD"); /* not into xdvipdfmx, nor anything else started from here */
  say("\nREFIG-READY\n"); /* on a line of its own: xelatex leaves its last line open */
  while (read_line(folder, sizeof folder)) {
    pid_t child = fork();
    if (child == 0) {
      if (chdir(folder) != 0) _exit(70);
      own_log(); /* before the terminal's file, itself a .log, is opened */
      int null = open("/dev/null", O_RDONLY);
      int out = open("refig-output.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (null < 0 || out < 0) _exit(70);
      dup2(null, STDIN_FILENO);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      close(null);
      close(out);
      return real("refig-rest.tex", mode);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0) _exit(71);
    snprintf(answer, sizeof answer, "REFIG-DONE\t%d\n",
             WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    say(answer);
  }
  _exit(0);
}

static FILE *opened(const char *name, const char *mode,
                    FILE *(*real)(const char *, const char *)) {
  const char *base = strrchr(name, '/');
  base = base == NULL ? name : base + 1;
  if (!served && mode[0] == 'r' && strcmp(base, "figure.tex") == 0) {
    served = 1;
    return serve(real, mode);
  }
  return real(name, mode);
}

FILE *fopen(const char *name, const char *mode) {
  static FILE *(*real)(const char *, const char *);
  if (real == NULL) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
  return opened(name, mode, real);
}

FILE *fopen64(const char *name, const char *mode) {
  static FILE *(*real)(const char *, const char *);
  if (real == NULL) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen64");
  return opened(name, mode, real);
}
