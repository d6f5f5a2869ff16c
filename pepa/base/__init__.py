"""Infrastructure every other package may use: the exception tree, named threads, signal
handlers that only record, logging, child environments without secrets, URLs, private
directories and where Node lives. It imports no other part of pepa."""
