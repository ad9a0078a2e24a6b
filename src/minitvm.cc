// libminitvm is the union of the module archives (see cmake/modules.cmake).
