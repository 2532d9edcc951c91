# refig's driver for R programs: parse first, draw on a png device, print visible values (a
# ggplot at top level draws, as it would interactively). refig_run returns 0 ran, 3 syntax
# error, 4 runtime error. As a script: arguments program, image out, width px, height px; with
# REFIG_WARM set it serves jobs from stdin instead (see warm_figure.R).
refused <- function(...) message("refig: package installation refused: nothing can be installed here")
install.packages <- refused

refig_run <- function(program, image, width, height) {
  exprs <- tryCatch(parse(program, keep.source = FALSE), error = function(e) {
    message("Error: ", conditionMessage(e))
    NULL
  })
  if (is.null(exprs)) return(3L)
  png(image, width = width, height = height)
  env <- new.env(parent = globalenv())
  ok <- tryCatch({
    for (e in exprs) {
      v <- withVisible(eval(e, envir = env))
      if (v$visible) print(v$value)
    }
    TRUE
  }, error = function(e) {
    message("Error: ", conditionMessage(e))
    FALSE
  })
  graphics.off()
  if (ok) 0L else 4L
}

if (!nzchar(Sys.getenv("REFIG_WARM"))) {
  args <- commandArgs(trailingOnly = TRUE)
  quit(save = "no", status = refig_run(args[1], args[2], as.integer(args[3]),
                                       as.integer(args[4])))
}
