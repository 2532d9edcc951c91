# refig's driver for one R program: parse first, draw on a png device, print visible values
# (a ggplot at top level draws, as it would interactively). Exit codes: 0 ran, 3 syntax error,
# 4 runtime error. Arguments: program, image out, width px, height px.
args <- commandArgs(trailingOnly = TRUE)
refused <- function(...) message("refig: package installation refused: nothing can be installed here")
install.packages <- refused
exprs <- tryCatch(parse(args[1], keep.source = FALSE), error = function(e) {
  message("Error: ", conditionMessage(e))
  quit(save = "no", status = 3)
})
png(args[2], width = as.integer(args[3]), height = as.integer(args[4]))
ok <- tryCatch({
  for (e in exprs) {
    v <- withVisible(eval(e, envir = globalenv()))
    if (v$visible) print(v$value)
  }
  TRUE
}, error = function(e) {
  message("Error: ", conditionMessage(e))
  FALSE
})
graphics.off()
quit(save = "no", status = if (ok) 0 else 4)
