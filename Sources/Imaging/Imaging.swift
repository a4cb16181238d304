// Imaging: placeholder until the module lands.
