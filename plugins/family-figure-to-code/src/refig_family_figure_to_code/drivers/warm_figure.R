# refig's warm R server: R started once, with its graphics and (when installed) ggplot2's
# namespace loaded, not attached, and warmed by one throwaway plot; each program runs in a fresh
# fork of it (parallel::mcparallel), so nothing one program does reaches the next and each starts
# as a cold `Rscript --vanilla` of run_figure.R would, only sooner. Jobs arrive one per line on
# stdin (tab-separated: directory, program, image, width, height, capture protocol); each is
# answered with REFIG-DONE<TAB>status on stdout (REFIG-READY once loaded). The fork's own stdout
# is /dev/null (silent), so a program cannot write to this channel; its output is sunk to
# refig-output.log in its directory. The fork draws a fresh random seed from its own pid.
source(file.path(Sys.getenv("REFIG_DRIVERS"), "run_figure.R"))

# One throwaway ggplot drawn on a png device before any fork, so the forks find ggplot2's lazily
# loaded functions, scales and guides and the device's fonts already loaded (a ggplot2 program
# drew in about two thirds of the time, to the same bytes). Nothing of it stays for a program:
# ggplot2 is not attached, its last plot is cleared, the device is closed and its file removed,
# and no random seed is left.
refig_warm_ggplot <- function() {
  if (!suppressPackageStartupMessages(requireNamespace("ggplot2", quietly = TRUE))) return()
  scratch <- tempfile(fileext = ".png")
  png(scratch, width = 8, height = 6, units = "in", res = 300)
  plot(1:3, main = "base")
  d <- data.frame(x = c(1, 2, 3, 4), y = c(3, 5, 2, 4), g = c("a", "a", "b", "b"))
  print(ggplot2::ggplot(d, ggplot2::aes(x, y, colour = g, fill = g, label = g)) +
          ggplot2::geom_col() + ggplot2::geom_line() + ggplot2::geom_point() +
          ggplot2::geom_text() + ggplot2::facet_wrap(~g) +
          ggplot2::labs(title = "t", x = "x", y = "y") + ggplot2::theme_minimal())
  graphics.off()
  unlink(scratch)
  ggplot2::set_last_plot(NULL)
  if (exists(".Random.seed", envir = globalenv())) rm(".Random.seed", envir = globalenv())
}

local({
  loadNamespace("parallel")
  refig_warm_ggplot()
  control <- stdout()
  input <- file("stdin", open = "r")
  run_job <- function(job) {
    setwd(job[1])
    log <- file("refig-output.log", open = "wt")
    sink(log)
    sink(log, type = "message")
    tryCatch(if (identical(job[6], "figcodebench")) refig_capture(job[2], job[3]) else
               refig_run(job[2], job[3], as.integer(job[4]), as.integer(job[5])),
             error = function(e) { message("Error: ", conditionMessage(e)); 4L })
  }
  cat("REFIG-READY\n", file = control)  # loaded: the first program's time starts now
  flush(control)
  while (length(line <- readLines(input, n = 1)) > 0) {
    job <- strsplit(line, "\t", fixed = TRUE)[[1]]
    tempdir(check = TRUE)  # a fork that calls quit() removes the session's tempdir on its way
    status <- parallel::mccollect(parallel::mcparallel(run_job(job), silent = TRUE))[[1]]
    if (!is.integer(status)) {
      # The fork ended R itself (quit(), a crash): its exit status does not come back. As the
      # release keeps whatever image a run left, an image on disk counts as drawn.
      cat("refig: the program ended R itself\n", file = file.path(job[1], "refig-output.log"),
          append = TRUE)
      status <- if (file.exists(file.path(job[1], job[3]))) 0L else 4L
    }
    cat("REFIG-DONE\t", status, "\n", sep = "", file = control)
    flush(control)
  }
})
