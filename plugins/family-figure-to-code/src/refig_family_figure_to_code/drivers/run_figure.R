# refig's driver for R programs: parse first, draw on a png device, print visible values (a
# ggplot at top level draws, as it would interactively). refig_run returns 0 ran, 3 syntax
# error, 4 runtime error. As a script: arguments program, image out, width px, height px and
# optionally the capture protocol (figcodebench: refig_capture); with REFIG_WARM set it serves
# jobs from stdin instead (see warm_figure.R).
refused <- function(...) message("refig: package installation refused: nothing can be installed here")
install.packages <- refused

# Parse `program` (3 when it does not), open the device `open_device()`, run `draw(exprs)`
# (4 when it fails), close every device: 0 when it drew.
refig_draw <- function(program, open_device, draw) {
  exprs <- tryCatch(parse(program, keep.source = FALSE), error = function(e) {
    message("Error: ", conditionMessage(e))
    NULL
  })
  if (is.null(exprs)) return(3L)
  open_device()
  ok <- tryCatch({
    draw(exprs)
    TRUE
  }, error = function(e) {
    message("Error: ", conditionMessage(e))
    FALSE
  })
  graphics.off()
  if (ok) 0L else 4L
}

refig_run <- function(program, image, width, height) {
  env <- new.env(parent = globalenv())
  refig_draw(program, function() png(image, width = width, height = height), function(exprs) {
    for (e in exprs) {
      v <- withVisible(eval(e, envir = env))
      if (v$visible) print(v$value)
    }
  })
}

# FigCodeBench's capture: png(OUT, width=8, height=6, units='in', res=300);
# source(PROG, print.eval=TRUE); dev.off(). Parsed first, so a syntax error is told apart.
refig_capture <- function(program, image) {
  refig_draw(program, function() png(image, width = 8, height = 6, units = "in", res = 300),
             function(exprs) source(program, print.eval = TRUE))
}

if (!nzchar(Sys.getenv("REFIG_WARM"))) {
  args <- commandArgs(trailingOnly = TRUE)
  status <- if (isTRUE(args[5] == "figcodebench")) refig_capture(args[1], args[2]) else
    refig_run(args[1], args[2], as.integer(args[3]), as.integer(args[4]))
  quit(save = "no", status = status)
}
