/* Messages to the user, flushed, with the rank where it matters. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int log_rank_ = 0;
static int log_size_ = 1;
static int log_info_stderr_ = 0;
static char log_host_[64];

/* The host name, looked up once: a multi-node job's messages say where. */
static const char *log_host(void)
{
  if (!log_host_[0] && gethostname(log_host_, sizeof log_host_ - 1) != 0)
    snprintf(log_host_, sizeof log_host_, "?");
  return log_host_;
}

void log_init(int rank, int size)
{
  log_rank_ = rank;
  log_size_ = size;
}

int log_rank(void)
{
  return log_rank_;
}

/* FMT with AP and a newline to F, flushed. */
static void say(FILE *f, const char *fmt, va_list ap)
{
  vfprintf(f, fmt, ap);
  fputc('\n', f);
  fflush(f);
}

void log_fail(const char *component, const char *file, int line, const char *fmt, ...)
{
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fflush(stdout);
  fprintf(stderr, "islandpso: error: [rank %d on %s] %s: %s (%s:%d)\n", log_rank_, log_host(),
          component, msg, file, line);
  fflush(stderr);
}

void log_user_error(const char *fmt, ...)
{
  va_list ap;
  fflush(stdout);
  va_start(ap, fmt);
  say(stderr, fmt, ap);
  va_end(ap);
}

void log_warn(const char *fmt, ...)
{
  va_list ap;
  fflush(stdout);
  if (log_size_ > 1)
    fprintf(stderr, "islandpso: warning: [rank %d] ", log_rank_);
  else
    fputs("islandpso: warning: ", stderr);
  va_start(ap, fmt);
  say(stderr, fmt, ap);
  va_end(ap);
}

void log_info(const char *fmt, ...)
{
  if (log_rank_ != 0) return;
  va_list ap;
  va_start(ap, fmt);
  say(log_info_stderr_ ? stderr : stdout, fmt, ap);
  va_end(ap);
}

void log_info_to_stderr(void)
{
  log_info_stderr_ = 1;
}
