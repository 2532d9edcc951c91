# refig's warm R server: one R process, each program evaluated in a fresh environment with its
# own device, its output sunk to refig-output.log in its directory. Jobs arrive one per line on
# stdin (tab-separated: directory, program, image, width, height); each is answered with
# REFIG-DONE<TAB>status on stdout (REFIG-READY once loaded). Attached packages stay attached between programs.
source(file.path(Sys.getenv("REFIG_DRIVERS"), "run_figure.R"))
control <- stdout()
input <- file("stdin", open = "r")
home <- getwd()
saved <- options()
cat("REFIG-READY\n", file = control)  # loaded: the first program's time starts now
flush(control)
while (length(line <- readLines(input, n = 1)) > 0) {
  job <- strsplit(line, "\t", fixed = TRUE)[[1]]
  setwd(job[1])
  log <- file("refig-output.log", open = "wt")
  sink(log)
  sink(log, type = "message")
  status <- tryCatch(refig_run(job[2], job[3], as.integer(job[4]), as.integer(job[5])),
                     error = function(e) { message("Error: ", conditionMessage(e)); 4L })
  sink(type = "message")
  sink()
  close(log)
  options(saved)
  setwd(home)
  cat("REFIG-DONE\t", status, "\n", sep = "", file = control)
  flush(control)
}
